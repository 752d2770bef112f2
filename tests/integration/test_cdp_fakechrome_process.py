"""`tests/fakechrome/fake-chrome` as a process on fds 3/4, the way the owner will start it."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from tests.support.pix3 import pix3_env

FAKE = Path(__file__).resolve().parents[1] / "fakechrome" / "fake-chrome"


class Piped:
    def __init__(self, process: subprocess.Popen[bytes], to_chrome: int, from_chrome: int) -> None:
        self.process = process
        self.to_chrome = to_chrome
        self.from_chrome = from_chrome
        self.buffer = b""

    def send(self, message: dict[str, object]) -> None:
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")

    def receive(self) -> dict[str, object]:
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_chrome, 65536)
            assert chunk, "fake chrome closed its pipe"
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return dict(json.loads(message))


@contextmanager
def fake_chrome(*args: str, env: dict[str, str] | None = None) -> Iterator[Piped]:
    command_read, command_write = os.pipe()
    answer_read, answer_write = os.pipe()

    def into_3_and_4() -> None:
        # Move out of the way first: os.pipe() may itself have returned 3 or 4, and a dup2(3, 3) keeps close-on-exec.
        high_read = fcntl.fcntl(command_read, fcntl.F_DUPFD, 10)
        high_write = fcntl.fcntl(answer_write, fcntl.F_DUPFD, 10)
        os.dup2(high_read, 3)
        os.dup2(high_write, 4)

    process = subprocess.Popen(
        [str(FAKE), *args],
        env=pix3_env({"PIX3_FAKE_CHROME_PYTHON": sys.executable, **(env or {})}),
        preexec_fn=into_3_and_4,
        close_fds=False,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(command_read)
    os.close(answer_write)
    try:
        yield Piped(process, command_write, answer_read)
    finally:
        for fd in (command_write, answer_read):
            with suppress(OSError):
                os.close(fd)
        process.kill()
        process.wait(timeout=10)
        assert process.stderr is not None
        process.stderr.close()


def test_answers_on_the_pipe_and_exits_on_browser_close(tmp_path: Path) -> None:
    record = tmp_path / "argv.json"
    with fake_chrome(
        "--remote-debugging-pipe", "--headless=new", "http://x/__pix3/", env={"PIX3_FAKE_CHROME_ARGV": str(record)}
    ) as chrome:
        chrome.send({"id": 1, "method": "Browser.getVersion"})
        assert chrome.receive() == {
            "id": 1,
            "result": {
                "protocolVersion": "1.3",
                "product": "FakeChrome/1.0",
                "revision": "@fake",
                "userAgent": "FakeChrome HeadlessChrome/1.0",  # launched with --headless=new, as Chrome says it
                "jsVersion": "0",
            },
        }
        chrome.send({"id": 2, "method": "Target.getTargets"})
        infos = chrome.receive()["result"]
        assert [t["url"] for t in infos["targetInfos"]] == ["", "http://x/__pix3/"]  # type: ignore[index]
        chrome.send({"id": 3, "method": "Browser.close"})
        assert chrome.receive() == {"id": 3, "result": {}}
        assert chrome.process.wait(timeout=10) == 0
    assert json.loads(record.read_text())["argv"] == ["--remote-debugging-pipe", "--headless=new", "http://x/__pix3/"]


def test_exits_when_its_pipe_closes() -> None:
    with fake_chrome("--app=http://x/__pix3/") as chrome:
        chrome.send({"id": 1, "method": "Target.getTargets"})
        assert "http://x/__pix3/" in json.dumps(chrome.receive())
        os.close(chrome.to_chrome)
        assert chrome.process.wait(timeout=10) == 0


def test_faults_exit_early_with_stderr_lines() -> None:
    with fake_chrome("--fake-exit-at-once", env={"PIX3_FAKE_CHROME_STDERR": "first\nsecond"}) as chrome:
        assert chrome.process.wait(timeout=10) == 0
        assert chrome.process.stderr is not None
        assert chrome.process.stderr.read().decode().splitlines() == ["first", "second"]
    with fake_chrome(env={"PIX3_FAKE_CHROME_EXIT": "7"}) as chrome:
        assert chrome.process.wait(timeout=10) == 7


def test_without_fds_3_and_4_it_says_so() -> None:
    done = subprocess.run(
        [str(FAKE)],
        env=pix3_env({"PIX3_FAKE_CHROME_PYTHON": sys.executable}),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 1 and "fds 3/4" in done.stderr
