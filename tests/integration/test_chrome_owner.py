"""`pix3 __chrome-owner` as a real process with the fake Chrome (docs/chrome-owner.md, "The owner process")."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import stat
import sys
import time
from pathlib import Path

import httpx
import pytest
import trio

from pix3net.clients.cdptrio import Closed, WsClient
from pix3net.owner import process as owner_module
from pix3net.owner.chrome.launch import spawn_chrome
from pix3net.owner.options import OwnerOptions
from pix3net.owner.process import wait_ready
from pix3net.owner.proxy.transport import HotPath
from tests.support.chrome import fake_chrome_wrapper
from tests.support.chrome_owner import run_owner
from tests.support.pix3 import REPO, run_pix3
from tests.support.ports import free_port
from tests.support.processes import pid_alive, processes_with, wait_until

LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[owner (\d+)\] ")
ADVICE = "close it and run pix3 editor again."


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["not-json"], "not-json"),
        ([], "(none)"),
        (['{"chrome": 1, "port": 9333, "profile": "/p", "url": "http://x/"}'], None),
        (['{"chrome": "c", "port": "9333", "profile": "/p", "url": "http://x/"}'], None),
        (["[1, 2]"], "[1, 2]"),
    ],
)
def test_bad_options_exit_2(pix3_home: Path, argv: list[str], shown: str | None) -> None:
    done = run_pix3("__chrome-owner", *argv)
    assert done.returncode == 2, done
    line = done.stdout.strip()
    match = LINE.match(line)
    assert match is not None and int(match.group(1)) > 0, line
    assert line[match.end() :] == f"bad options: {shown if shown is not None else argv[0]}"
    assert not (pix3_home / "chrome.json").exists()


def test_life_with_the_fake_chrome(pix3_home: Path, tmp_path: Path) -> None:
    wrapper = fake_chrome_wrapper(tmp_path)
    with run_owner(pix3_home, wrapper) as owner:
        owner.wait_listening()
        record = owner.record
        assert list(record) == ["port", "profile", "startedAt", "editorUrl", "ownerPid", "chromePid", "proxy"]
        assert record["ownerPid"] == owner.process.pid and record["proxy"] == 1
        assert record["editorUrl"] == owner.url and record["profile"] == str(owner.profile)
        assert (pix3_home / "chrome.json").read_text().endswith("}\n")
        # the token file: made by the owner when missing, 43 characters, 0600
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", owner.token)
        assert stat.S_IMODE((pix3_home / "cdp-token").stat().st_mode) == 0o600
        argv = (tmp_path / "fake-chrome.argv").read_text().splitlines()
        assert "--remote-debugging-pipe" in argv and f"--user-data-dir={owner.profile}" in argv
        assert not any(a.startswith("--remote-debugging-port") for a in argv)
        assert argv[-2:] == ["--headless=new", owner.url]
        assert ("--no-sandbox" in argv) == (os.geteuid() == 0)
        base = f"http://127.0.0.1:{owner.port}"
        assert httpx.get(f"{base}/json/version").status_code == 401
        version = httpx.get(f"{base}/json/version", headers=_auth(owner.token)).json()
        assert version["Browser"] == "FakeChrome/1.0" and version["Pix3-Cdp-Proxy"] == 1
        pages = httpx.get(f"{base}/json/list", headers=_auth(owner.token)).json()
        assert [p["url"] for p in pages] == [owner.url]
        log = owner.output()
        lines = log.splitlines()
        assert all(LINE.match(x) for x in lines), log
        assert f"launching {wrapper} --user-data-dir=" in log
        assert f"FakeChrome/1.0 (pid {record['chromePid']}) behind ws://127.0.0.1:{owner.port}/pix3" in log
        assert owner.token not in log


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signals_close_chrome_and_exit_0(pix3_home: Path, tmp_path: Path, signum: signal.Signals) -> None:
    with run_owner(pix3_home, fake_chrome_wrapper(tmp_path)) as owner:
        owner.wait_listening()
        chrome_pid = owner.record["chromePid"]
        owner.process.send_signal(signum)
        assert owner.wait_exit() == 0, owner.output()
        log = owner.output()
        assert f"{signum.name}: closing Chrome" in log
        assert "Chrome is gone (code 0, signal -)" in log
        assert not (pix3_home / "chrome.json").exists()
        wait_until(lambda: not pid_alive(chrome_pid), 5, "Chrome's exit")


def test_chrome_ignoring_browser_close_is_killed_after_3_s(pix3_home: Path, tmp_path: Path) -> None:
    env = {"PIX3_FAKE_CHROME_IGNORE_CLOSE": "1"}
    with run_owner(pix3_home, fake_chrome_wrapper(tmp_path), env=env) as owner:
        owner.wait_listening()
        owner.process.send_signal(signal.SIGTERM)
        start = time.monotonic()
        assert owner.wait_exit() == 0, owner.output()
        assert 2.5 < time.monotonic() - start < 10
        assert "Chrome is gone (code -, signal SIGKILL)" in owner.output()
        assert not (pix3_home / "chrome.json").exists()


def test_chrome_that_stopped_reading_a_full_pipe_is_killed_after_3_s(pix3_home: Path, tmp_path: Path) -> None:
    """A hung Chrome whose command pipe is full: Browser.close cannot be written (and a send is
    never cut in half), but the 3 s grace still ends with SIGKILL; the owner used to wait on the
    write for ever."""
    with run_owner(pix3_home, fake_chrome_wrapper(tmp_path)) as owner:
        owner.wait_listening()
        chrome_pid = owner.record["chromePid"]
        os.kill(chrome_pid, signal.SIGSTOP)  # hung: reads nothing more
        try:
            pipe = os.open(f"/proc/{chrome_pid}/fd/3", os.O_WRONLY | os.O_NONBLOCK)  # its command pipe
            try:
                for size in (4096, 1):  # full to the last byte
                    with contextlib.suppress(BlockingIOError):
                        while True:
                            os.write(pipe, b" " * size)
            finally:
                os.close(pipe)
            owner.process.send_signal(signal.SIGTERM)
            start = time.monotonic()
            assert owner.wait_exit() == 0, owner.output()
            assert 2.5 < time.monotonic() - start < 10
            assert "Chrome is gone (code -, signal SIGKILL)" in owner.output()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(chrome_pid, signal.SIGKILL)


async def test_chrome_killed_closes_clients_1001_and_the_owner_exits_0(pix3_home: Path, tmp_path: Path) -> None:
    with run_owner(pix3_home, fake_chrome_wrapper(tmp_path)) as owner:
        await trio.to_thread.run_sync(owner.wait_listening)
        headers = [("Authorization", f"Bearer {owner.token}")]
        codes: list[int] = []
        async with (
            await WsClient.connect(owner.port, "/pix3", headers) as a,
            await WsClient.connect(owner.port, "/pix3", headers) as b,
        ):
            for ws in (a, b):
                await ws.send('{"id":1,"method":"Browser.getVersion"}')
                assert json.loads(await ws.receive())["result"]["product"] == "FakeChrome/1.0"
            os.kill(owner.record["chromePid"], signal.SIGKILL)
            for ws in (a, b):
                with trio.fail_after(10), pytest.raises(Closed) as closed:
                    await ws.receive()
                codes.append(closed.value.code)
        assert codes == [1001, 1001]
        assert await trio.to_thread.run_sync(owner.wait_exit) == 0
        assert "Chrome is gone (code -, signal SIGKILL)" in owner.output()
        assert not (pix3_home / "chrome.json").exists()


async def test_chrome_killed_with_a_grandchild_holding_its_pipe_still_ends(pix3_home: Path, tmp_path: Path) -> None:
    """Chrome's process gone but its pipe held open by a process it left behind: the end of the
    pipe never comes, so the owner ends the channel when it reaps Chrome, and the proxy's reader
    thread, woken for it, reads what is left and ends (clients closed 1001, owner exits 0)."""
    wrapper = tmp_path / "chrome-with-grandchild"
    wrapper.write_text(
        "#!/bin/sh\n"
        f"sleep 60 & echo $! > {tmp_path / 'grandchild'}\n"  # inherits fds 3/4: the pipe stays open
        f'cd {REPO} && exec {sys.executable} -m tests.fakechrome "$@"\n'
    )
    wrapper.chmod(0o755)
    with run_owner(pix3_home, wrapper) as owner:
        await trio.to_thread.run_sync(owner.wait_listening)
        grandchild = int((tmp_path / "grandchild").read_text())
        try:
            headers = [("Authorization", f"Bearer {owner.token}")]
            async with await WsClient.connect(owner.port, "/pix3", headers) as ws:
                await ws.send('{"id":1,"method":"Browser.getVersion"}')
                assert json.loads(await ws.receive())["result"]["product"] == "FakeChrome/1.0"
                os.kill(owner.record["chromePid"], signal.SIGKILL)
                with trio.fail_after(10), pytest.raises(Closed) as closed:
                    await ws.receive()
                assert closed.value.code == 1001
            assert pid_alive(grandchild)  # the pipe was still open when the owner ended it
            assert await trio.to_thread.run_sync(owner.wait_exit) == 0
            assert "Chrome is gone (code -, signal SIGKILL)" in owner.output()
        finally:
            os.kill(grandchild, signal.SIGKILL)


def test_owner_killed_chrome_exits_by_itself(pix3_home: Path, tmp_path: Path) -> None:
    with run_owner(pix3_home, fake_chrome_wrapper(tmp_path)) as owner:
        owner.wait_listening()
        chrome_pid = owner.record["chromePid"]
        owner.process.kill()
        owner.process.wait(timeout=5)
        wait_until(lambda: not pid_alive(chrome_pid), 2, "Chrome's exit after its owner died")
        assert (pix3_home / "chrome.json").exists()  # a SIGKILLed owner leaves a stale record


def test_chrome_exiting_at_once_is_exit_3_with_advice(pix3_home: Path, tmp_path: Path) -> None:
    with run_owner(pix3_home, fake_chrome_wrapper(tmp_path, "--fake-exit-at-once")) as owner:
        assert owner.wait_exit() == 3
        log = owner.output()
        assert "Chrome exited before it answered (code 0, signal -). A Chrome that already runs the profile " in log
        assert (
            f"profile {owner.profile} (an editor window of an earlier pix3 editor?) takes a new launch over: {ADVICE}"
            in log
        )
        assert not (pix3_home / "chrome.json").exists()


def test_chrome_stderr_tail_is_in_the_advice(pix3_home: Path, tmp_path: Path) -> None:
    script = tmp_path / "noisy-chrome"
    lines = "".join(f"echo line {n} >&2; " for n in range(25))
    script.write_text(f"#!/bin/sh\n{lines}echo >&2; echo '   ' >&2; exit 21\n")
    script.chmod(0o755)
    with run_owner(pix3_home, script) as owner:
        assert owner.wait_exit() == 3
        log = owner.output()
        tail = "\n".join(f"line {n}" for n in range(5, 25))
        # What Chrome said, then the cause: Chrome's own exit code for a profile in use.
        said, cause = log.rstrip("\n").rsplit("\n", 1)
        assert said.endswith(f"Chrome said:\n{tail}"), log
        assert LINE.sub("", cause) == (
            f"Chrome exited before it answered (code 21, signal -): the profile {owner.profile} is locked by"
            " another Chrome — close that Chrome (pix3 editor --stop-chrome, if pix3 started it) or set"
            " PIX3_CHROME_PROFILE to another folder, then run pix3 editor again."
        )


def test_missing_binary_is_exit_3_naming_it(pix3_home: Path) -> None:
    missing = pix3_home / "no-such-chrome"
    with run_owner(pix3_home, missing, env={"PIX3_CHROME": str(missing)}) as owner:
        assert owner.wait_exit() == 3
        last = LINE.sub("", owner.output().rstrip("\n").rsplit("\n", 1)[-1])
        assert last == (
            f"PIX3_CHROME names {missing}, which does not exist: point PIX3_CHROME at the Chrome binary"
            " (or unset it to use the one on the PATH)."
        )


async def test_silent_chrome_times_out_after_20_s(autojump_clock: trio.testing.MockClock) -> None:
    silent = spawn_chrome(sys.executable, ["-c", "import time; time.sleep(120)"])
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(silent.reap)
            start = trio.current_time()
            product, why = await wait_ready(silent)
            assert (product, why) == (None, "Chrome did not answer within 20000 ms")
            assert trio.current_time() - start == pytest.approx(20.0)
            nursery.cancel_scope.cancel()
    finally:
        silent.kill()


async def test_chrome_closing_its_pipe_but_living_on_is_pipe_closed() -> None:
    # Real time: a child that takes its time to start on a loaded machine (it took over 1 s at load
    # 12) must still be told apart from a silent one; the closed pipe answers within milliseconds.
    code = "import os, time; os.close(3); os.close(4); time.sleep(120)"
    closer = spawn_chrome(sys.executable, ["-c", code])
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(closer.reap)
            product, why = await wait_ready(closer)
            assert (product, why) == (None, "Chrome exited before it answered (pipe closed)")
            nursery.cancel_scope.cancel()
    finally:
        closer.kill()


def test_cannot_listen_is_exit_4_and_chrome_is_killed(pix3_home: Path, tmp_path: Path) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        with run_owner(pix3_home, fake_chrome_wrapper(tmp_path), port=port) as owner:
            assert owner.wait_exit() == 4
            log = owner.output()
            assert f"cannot listen on 127.0.0.1:{port}: " in log
            assert not (pix3_home / "chrome.json").exists()
            wait_until(lambda: not processes_with(str(owner.profile)), 5, "the fake Chrome's exit")


def test_no_command_line_holds_the_token(pix3_home: Path, tmp_path: Path) -> None:
    with run_owner(pix3_home, fake_chrome_wrapper(tmp_path), port=free_port()) as owner:
        owner.wait_listening()
        assert processes_with(str(owner.profile)), "the owner and its Chrome run"
        assert processes_with(owner.token) == []


async def test_a_proxy_that_fails_closes_chrome_and_removes_the_record(
    pix3_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in the proxy once it listens (here: its hot path's thread fails reading Chrome): the
    owner logs why, closes Chrome, removes its record and exits 1, instead of a traceback and a
    record naming a proxy that is gone."""

    def broken(self: HotPath) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(HotPath, "_chrome", broken)
    options = OwnerOptions(
        chrome=str(fake_chrome_wrapper(tmp_path)), port=free_port(), profile=str(tmp_path / "p"), url="http://x/"
    )
    logs: list[str] = []
    with trio.fail_after(20):
        code = await owner_module.run_owner(options, home=pix3_home, log=logs.append, serve=owner_module._serve_proxy)
    assert code == 1
    assert "the CDP proxy failed (RuntimeError: boom); closing Chrome" in logs
    assert logs[-1] == "Chrome is gone (code -, signal SIGKILL)"
    assert not (pix3_home / "chrome.json").exists()
