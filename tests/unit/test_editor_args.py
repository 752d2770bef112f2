"""`pix3 editor` argument parsing, URL normalisation and the Remote SSH lines
(docs/editor.md, "The flow" and "Remote SSH")."""

from __future__ import annotations

import pytest

from pix3net.commands.editor.args import EditorArgs
from pix3net.commands.editor.command import SYNTAX
from pix3net.commands.editor.remotessh import remote_forward_lines, token_copy_line
from pix3tools.core.argv import UsageError, parse


def parse_editor_args(argv: list[str]) -> EditorArgs:
    return EditorArgs.of(parse(SYNTAX, argv))


def test_flags_and_values() -> None:
    args = parse_editor_args(["--stop", "--cdp-port", "9340", "--headless"])
    assert (args.stop, args.cdp_port, args.headless) == (True, 9340, True)
    assert (args.chrome_only, args.url, args.port) == (False, None, None)
    args = parse_editor_args(["--project", "p", "--port", "5174", "--no-chrome", "--stop-chrome", "--chrome-only"])
    assert (args.project, args.port, args.no_chrome, args.stop_chrome, args.chrome_only) == (
        "p",
        5174,
        True,
        True,
        True,
    )
    assert parse_editor_args(["--remote-port", "9400"]).remote_port == 9400
    assert parse(SYNTAX, ["x", "-h"]).help and parse(SYNTAX, ["--help"]).help


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--cdp-port"], "--cdp-port needs a value"),
        (["--port", "x"], "--port needs a port"),
        (["--port", "70000"], "--port needs a port"),
        (["--project", "--stop"], "--project needs a value"),
        (["--what"], 'unknown option "--what"'),
        (["--url", "file:///x"], '--url needs an http(s) URL, not "file:///x"'),
        (["--url", "nonsense"], '--url needs an http(s) URL, not "nonsense"'),
        (["--ssh"], "--ssh needs a value"),
        (["x"], 'unknown option "x"'),
        (["--port=5174"], 'unknown option "--port=5174" (write --port 5174)'),
    ],
)
def test_errors(argv: list[str], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_editor_args(argv)
    assert caught.value.message == message


def test_url_is_normalised_and_implies_chrome_only() -> None:
    args = parse_editor_args(["--url", "http://localhost:5174"])
    assert (args.url, args.chrome_only) == ("http://localhost:5174/__pix3/", True)
    args = parse_editor_args(["--url", "http://localhost:5174/game/__pix3/", "--ssh", "box"])
    assert (args.url, args.chrome_only, args.ssh_host) == ("http://localhost:5174/game/__pix3/", True, "box")
    assert parse_editor_args(["--url", "https://h.example/a/__pix3?x=1#y"]).url == "https://h.example/a/__pix3/"
    # the editor page's name is localhost: the dev server sends a browser there from 127.0.0.1 and [::1]
    assert parse_editor_args(["--url", "http://127.0.0.1:5173/"]).url == "http://localhost:5173/__pix3/"
    assert parse_editor_args(["--url", "http://[::1]:5173/a"]).url == "http://localhost:5173/a/__pix3/"
    assert parse_editor_args(["--url", "https://127.0.0.1:5173/"]).url == "https://127.0.0.1:5173/__pix3/"


def test_token_copy_lines_ask_for_no_forward() -> None:
    """The copy runs while the SSH session with the RemoteForward is up: it must not request the
    forward again (with ExitOnForwardFailure that fails the copy with 255), so ClearAllForwardings."""
    assert token_copy_line("C:\\Users\\a\\.pix3\\cdp-token", "box", "win32") == (
        'type "C:\\Users\\a\\.pix3\\cdp-token" | ssh -o ClearAllForwardings=yes box'
        ' "umask 077 && mkdir -p ~/.pix3 && cat > ~/.pix3/remote-cdp-token"'
    )
    assert token_copy_line("/h/.pix3/cdp-token", "box", "linux") == (
        "ssh -o ClearAllForwardings=yes box 'umask 077 && mkdir -p ~/.pix3 && cat > ~/.pix3/remote-cdp-token'"
        " < /h/.pix3/cdp-token"
    )
    assert token_copy_line("/h/.pix3/cdp-token", None, "linux").startswith("ssh -o ClearAllForwardings=yes <ssh-host> ")


def test_remote_forward_lines() -> None:
    assert remote_forward_lines(9334) == ["RemoteForward 127.0.0.1:9334 127.0.0.1:9333", "ExitOnForwardFailure yes"]
    assert remote_forward_lines(9333, 9335)[0] == "RemoteForward 127.0.0.1:9333 127.0.0.1:9335"


def test_remote_host_mode() -> None:
    from pix3net.commands.editor.args import is_remote_host

    ssh = {"SSH_CONNECTION": "10.0.0.1 5000 10.0.0.2 22"}
    assert is_remote_host(ssh, headless=False)
    assert not is_remote_host(ssh, headless=True)
    assert not is_remote_host({**ssh, "PIX3_CHROME": "/usr/bin/chromium"}, headless=False)
    assert not is_remote_host({}, headless=False) and not is_remote_host({"SSH_CONNECTION": ""}, headless=False)
