"""The parent's side of the owner: start failures and `--stop-chrome` (docs/chrome-owner.md, "The parent's side")."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from pix3net.clients.port import inspect_port
from pix3net.daemon.chromerecord import ChromeRecord, read_record, write_record
from pix3net.owner import control
from pix3net.owner.control import OwnerStartError, start_owner, stop_owner
from pix3net.wire.token import read_token
from tests.support.chrome import fake_chrome_wrapper
from tests.support.ports import free_port
from tests.support.processes import processes_with, wait_until


async def _never_ours(port: int, token: str) -> bool:
    return False


async def test_owner_that_exits_is_reported_with_its_log(pix3_home: Path) -> None:
    (pix3_home / "chrome-owner.log").write_text("an older owner's log\n")
    with pytest.raises(OwnerStartError) as caught:
        await start_owner(
            pix3_home,
            chrome="/bin/false",
            port=9,
            profile=str(pix3_home / "chrome"),
            url="http://x/",
            headless=True,
            is_ours=_never_ours,
        )
    message = str(caught.value)
    log = pix3_home / "chrome-owner.log"
    first, second, *rest = message.splitlines()
    # The cause first (the owner's last entry), then where the whole story is.
    assert first.startswith("Chrome exited before it answered (code 1, signal -). A Chrome that already runs")
    assert second == f"The Chrome owner exited (code 3); the end of {log}:"
    assert any("launching /bin/false" in line for line in rest)
    assert "an older owner's log" not in log.read_text()  # truncated by the parent
    assert (pix3_home / "cdp-token").exists()  # written before the spawn


async def test_owner_that_never_answers_is_stopped(
    pix3_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(control, "START_WAIT_SECONDS", 1.0)
    silent = tmp_path / "silent-chrome"
    silent.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import time; time.sleep(60)'\n")
    silent.chmod(0o755)
    with pytest.raises(OwnerStartError) as caught:
        await start_owner(
            pix3_home,
            chrome=str(silent),
            port=9,
            profile=str(pix3_home / "chrome"),
            url="http://x/",
            is_ours=_never_ours,
        )
    assert str(caught.value).startswith(f"the CDP proxy did not come up — {pix3_home / 'chrome-owner.log'}:\n")
    assert "launching " in str(caught.value)


def test_stop_without_a_record(pix3_home: Path) -> None:
    assert stop_owner(pix3_home) == "No Chrome owner recorded in ~/.pix3/chrome.json."
    write_record(pix3_home, ChromeRecord(port=9333, profile="/p"))  # a 1.x record: no ownerPid
    assert stop_owner(pix3_home) == "No Chrome owner recorded in ~/.pix3/chrome.json."


@pytest.mark.parametrize("pid", [2**22 - 1, 0, -1])
def test_stop_a_dead_owner(pix3_home: Path, pid: int) -> None:
    write_record(pix3_home, ChromeRecord(port=9333, profile="/p", owner_pid=pid))
    assert stop_owner(pix3_home) == f"The Chrome owner recorded (pid {pid}) is not running or did not stop."
    assert read_record(pix3_home) is not None  # never deleted by the stopper


_ZOMBIE_PARENT = """
import os, sys, time
child = os.fork()
if child == 0:
    os._exit(0)
print(child, flush=True)
time.sleep(60)  # never reaps it: the child stays a zombie
"""


def test_stop_an_owner_that_died_but_was_not_reaped_yet(pix3_home: Path) -> None:
    """A dead owner whose parent has not reaped it takes a signal like a live one: it was not
    stopped by us (seen when init was slow to reap an owner killed with SIGKILL)."""
    parent = subprocess.Popen([sys.executable, "-c", _ZOMBIE_PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        zombie = int(parent.stdout.readline())
        wait_until(lambda: Path(f"/proc/{zombie}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z", 5, "zombie")
        write_record(pix3_home, ChromeRecord(port=9444, profile="/p", owner_pid=zombie))
        assert stop_owner(pix3_home) == f"The Chrome owner recorded (pid {zombie}) is not running or did not stop."
    finally:
        parent.kill()
        parent.communicate()


def test_stop_sends_sigterm_and_waits(pix3_home: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        write_record(pix3_home, ChromeRecord(port=9444, profile="/p", owner_pid=sleeper.pid))
        assert stop_owner(pix3_home) == f"Stopped Chrome and its CDP proxy on port 9444 (owner pid {sleeper.pid})."
        assert not Path(f"/proc/{sleeper.pid}").exists()  # gone (and reaped by the stopper)
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
            sleeper.wait()


def test_stop_gives_up_after_6_s(pix3_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(control, "STOP_WAIT_SECONDS", 0.3)
    stubborn = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert stubborn.stdout is not None and stubborn.stdout.readline()  # its handler is in place
        write_record(pix3_home, ChromeRecord(port=9444, profile="/p", owner_pid=stubborn.pid))
        assert (
            stop_owner(pix3_home) == f"The Chrome owner recorded (pid {stubborn.pid}) is not running or did not stop."
        )
        assert stubborn.poll() is None
    finally:
        os.kill(stubborn.pid, signal.SIGKILL)
        stubborn.wait()
        if stubborn.stdout is not None:
            stubborn.stdout.close()


async def test_full_life_through_start_and_stop_with_the_fake_chrome(pix3_home: Path, tmp_path: Path) -> None:
    """The launch `pix3 editor` makes (pipe, profile, record, proof), then `--stop-chrome` frees the port."""
    wrapper = fake_chrome_wrapper(tmp_path)
    port = free_port()
    url = "http://localhost:5173/__pix3/"
    started = await start_owner(
        pix3_home, chrome=str(wrapper), port=port, profile=str(pix3_home / "chrome"), url=url, headless=True
    )
    try:
        token = read_token(pix3_home / "cdp-token")
        assert token is not None
        argv = (tmp_path / "fake-chrome.argv").read_text().splitlines()
        assert "--remote-debugging-pipe" in argv and f"--user-data-dir={pix3_home / 'chrome'}" in argv
        assert not any(a.startswith("--remote-debugging-port") for a in argv) and argv[-1] == url
        record = read_record(pix3_home)
        assert record is not None and (record.port, record.editor_url, record.proxy) == (port, url, 1)
        assert record.owner_pid == started.pid > 0
        inspection = await inspect_port(port, token)
        assert (inspection.kind, inspection.pages) == ("ours", [url])
        async with httpx.AsyncClient() as client:
            assert (await client.get(f"http://127.0.0.1:{port}/json/version")).status_code == 401
        assert stop_owner(pix3_home) == f"Stopped Chrome and its CDP proxy on port {port} (owner pid {started.pid})."
        assert read_record(pix3_home) is None
        assert (await inspect_port(port, token)).kind == "free"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(started.pid, signal.SIGKILL)
        for pid in processes_with(str(pix3_home / "chrome")):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


async def test_chrome_that_exits_at_once_fails_the_start(pix3_home: Path, tmp_path: Path) -> None:
    """A Chrome that exits before it answers: the start fails with the owner's advice and leaves no record."""
    wrapper = fake_chrome_wrapper(tmp_path, "--fake-exit-at-once")
    with pytest.raises(OwnerStartError) as caught:
        await start_owner(
            pix3_home,
            chrome=str(wrapper),
            port=free_port(),
            profile=str(pix3_home / "chrome"),
            url="http://x/",
            headless=True,
        )
    message = str(caught.value)
    assert message.startswith("Chrome exited before it answered (code 0, signal -). A Chrome that already runs")
    assert "close it and run pix3 editor again" in message.splitlines()[0]
    assert "\nThe Chrome owner exited (code 3); the end of " in message
    assert read_record(pix3_home) is None
