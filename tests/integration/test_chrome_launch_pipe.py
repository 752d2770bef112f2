"""Chrome's launch with the pipe on fds 3/4 (also when os.pipe() returned 3 or 4) and the pipe channel, with a stand-in child."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import trio

from pix3net.owner.chrome.launch import spawn_chrome, spawn_handoff
from tests.support.pix3 import REPO, pix3_env

CHILD = str(REPO / "tests" / "support" / "chrome_echo_child.py")


async def test_pipe_round_trip_stdio_and_exit() -> None:
    chrome = spawn_chrome(sys.executable, [CHILD, "--x", "http://u/"])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(chrome.pump_stderr)
        nursery.start_soon(chrome.reap)
        report = json.loads(await chrome.channel.receive())
        assert report == {
            "fd0": "/dev/null",
            "fd1": "/dev/null",
            "fd3_fifo": True,
            "fd4_fifo": True,
            "argv": ["--x", "http://u/"],
        }
        await chrome.channel.send(b'{"id":1,"method":"A"}')
        assert await chrome.channel.receive() == b'{"id":1,"method":"A"}'
        await chrome.channel.send(b'{"id":2,"quit":true}')
        assert await chrome.channel.receive() == b'{"id":2,"quit":true}'
        with trio.fail_after(10):
            await chrome.exited.wait()
            await chrome.stderr_closed.wait()
        assert chrome.exit_description == "code 7, signal -"
        assert list(chrome.stderr_tail) == ["echo child: started", "echo child: quitting"]
        try:
            await chrome.channel.receive()
        except trio.EndOfChannel:
            pass
        else:
            raise AssertionError("the channel must end with Chrome")
        await chrome.channel.send(b'{"id":3}')  # dropped silently after close


async def test_30_mb_both_ways() -> None:
    chrome = spawn_chrome(sys.executable, [CHILD])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(chrome.reap)
        await chrome.channel.receive()
        big = b'{"id":5,"params":{"data":"' + b"x" * (30 * 1024 * 1024) + b'"}}'
        start = time.perf_counter()
        nursery.start_soon(chrome.channel.send, big)
        echoed = await chrome.channel.receive()
        elapsed = time.perf_counter() - start
        assert echoed == big
        assert elapsed < 5, elapsed
        chrome.kill()
        with trio.fail_after(10):
            await chrome.exited.wait()
        assert chrome.exit_description == "code -, signal SIGKILL"


def test_pipes_that_os_pipe_returned_as_3_and_4_still_reach_the_child() -> None:
    code = textwrap.dedent(
        f"""
        import json, os, sys
        os.closerange(3, 64)
        from pix3net.owner.chrome import launch
        made = []
        real_pipe = os.pipe
        def pipe():
            fds = real_pipe(); made.append(fds); return fds
        launch.os.pipe = pipe  # the same os module: we only watch which numbers come back
        chrome = launch.spawn_chrome(sys.executable, [{CHILD!r}])
        os.pipe = real_pipe
        assert 3 in made[0] and 4 in made[0], made
        import trio
        async def main():
            async with trio.open_nursery() as n:
                n.start_soon(chrome.reap)
                report = json.loads(await chrome.channel.receive())
                await chrome.channel.send(b'{{"quit":1}}')
                await chrome.channel.receive()
                await chrome.exited.wait()
                print(json.dumps([report["fd3_fifo"], report["fd4_fifo"], chrome.exit_description]))
        trio.run(main)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], env=pix3_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True, True, "code 7, signal -"]


async def test_missing_binary_raises() -> None:
    try:
        spawn_chrome("/nonexistent/chrome", [])
    except FileNotFoundError:
        pass  # the errno, not the C library's words for it
    else:
        raise AssertionError("spawning a missing binary must fail")


def test_handoff_is_detached_with_quiet_stdio(tmp_path: Path) -> None:
    out = tmp_path / "handoff.json"
    script = (
        "import json, os, sys; json.dump({'argv': sys.argv[1:], 'sid': os.getsid(0) == os.getpid(),"
        f" 'fd0': os.readlink('/proc/self/fd/0')}}, open({str(out)!r}, 'w'))"
    )
    pid = spawn_handoff(sys.executable, ["-c", script, "--app=http://h/"])
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert json.loads(out.read_text()) == {"argv": ["--app=http://h/"], "sid": True, "fd0": "/dev/null"}
