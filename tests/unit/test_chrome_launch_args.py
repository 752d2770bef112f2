"""Chrome's command lines, exact (docs/chrome-owner.md, "Command lines"), and --no-sandbox only as root."""

from __future__ import annotations

import os
import signal

from pix3net.owner.chrome.launch import chrome_args, describe_status, handoff_args, needs_no_sandbox

# The reference's five, then WebMCP's feature (docs/bridge.md, "WebMCP").
FIVE = [
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--enable-features=WebMCP",
]


def test_windowed_owner_launch_exact() -> None:
    args = chrome_args("/p", "http://localhost:5173/__pix3/")
    assert args == ["--user-data-dir=/p", "--remote-debugging-pipe", *FIVE, "--app=http://localhost:5173/__pix3/"]
    assert not any(a.startswith("--remote-debugging-port") for a in args)


def test_headless_owner_launch_ends_with_the_url() -> None:
    args = chrome_args("/p", "http://h/__pix3/", headless=True)
    assert args == ["--user-data-dir=/p", "--remote-debugging-pipe", *FIVE, "--headless=new", "http://h/__pix3/"]
    assert not any(a.startswith("--app=") for a in args)


def test_no_sandbox_goes_before_the_url() -> None:
    args = chrome_args("/p", "http://h/", headless=True, no_sandbox=True)
    assert args[-3:] == ["--no-sandbox", "--headless=new", "http://h/"]
    assert chrome_args("/p", "http://h/", no_sandbox=True)[-2:] == ["--no-sandbox", "--app=http://h/"]
    assert handoff_args("/p", "http://h/", no_sandbox=True)[-2:] == ["--no-sandbox", "--app=http://h/"]


def test_handoff_has_no_debugging_flag() -> None:
    assert handoff_args("/p", "http://h/") == ["--user-data-dir=/p", *FIVE, "--app=http://h/"]


def test_no_sandbox_only_for_root() -> None:
    assert needs_no_sandbox(0) is True
    assert needs_no_sandbox(1000) is False
    assert needs_no_sandbox() is (os.geteuid() == 0)


def test_exit_descriptions() -> None:
    assert describe_status(3 << 8) == "code 3, signal -"
    assert describe_status(signal.SIGKILL) == "code -, signal SIGKILL"
