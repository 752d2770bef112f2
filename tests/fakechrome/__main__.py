"""``python -m tests.fakechrome [chrome flags…] [url]``: the fake Chrome as a process.

Speaks Chrome's pipe protocol: NUL-terminated JSON, commands read on fd 3, answers and events
written on fd 4 (docs/chrome-owner.md, "The pipe"). The URL is ``--app=<url>`` or the last argument that does
not start with ``--``. Started with ``--headless…``, its user agent says ``HeadlessChrome``, as Chrome's
does. Ends (exit 0) on pipe EOF or after answering ``Browser.close``.

Faults and probes, through the environment (so an owner test can set them through
``PIX3_CHROME`` pointing at ``tests/fakechrome/fake-chrome``):
- ``PIX3_FAKE_CHROME_ARGV=<file>``     write ``{"argv": [...], "pid": n}`` as JSON there first;
- ``PIX3_FAKE_CHROME_STDERR=<text>``   print these lines on stderr at start;
- ``PIX3_FAKE_CHROME_EXIT=<code>``     exit with that code before answering anything
  (``--fake-exit-at-once`` = exit 0, as the reference's fake);
- ``PIX3_FAKE_CHROME_SILENT=1``        read commands but never answer (a hung Chrome);
- ``PIX3_FAKE_CHROME_IGNORE_CLOSE=1``  answer ``Browser.close`` but keep running (SIGKILL test);
- ``PIX3_FAKE_CHROME_DELAY_MS=<n>``    wait that long before each answer.
"""

from __future__ import annotations

import json
import os
import sys
import time

from tests.fakechrome.model import FakeChrome

READ_FD, WRITE_FD = 3, 4


def _url(argv: list[str]) -> str | None:
    for arg in argv:
        if arg.startswith("--app="):
            return arg.removeprefix("--app=")
    positional = [a for a in argv if not a.startswith("--")]
    return positional[-1] if positional else None


def _write_all(data: bytes) -> bool:
    view = memoryview(data)
    while view:
        try:
            written = os.write(WRITE_FD, view)
        except BrokenPipeError:
            return False
        view = view[written:]
    return True


def main(argv: list[str]) -> int:
    env = os.environ
    if env.get("PIX3_FAKE_CHROME_ARGV"):
        with open(env["PIX3_FAKE_CHROME_ARGV"], "w", encoding="utf-8") as handle:
            json.dump({"argv": argv, "pid": os.getpid()}, handle)
    for line in env.get("PIX3_FAKE_CHROME_STDERR", "").splitlines():
        print(line, file=sys.stderr, flush=True)
    if "--fake-exit-at-once" in argv:
        return 0
    if env.get("PIX3_FAKE_CHROME_EXIT"):
        return int(env["PIX3_FAKE_CHROME_EXIT"])
    try:
        os.fstat(READ_FD)
        os.fstat(WRITE_FD)
    except OSError:
        print("fake chrome: no pipe on fds 3/4 (--remote-debugging-pipe needs them)", file=sys.stderr)
        return 1
    url = _url(argv)
    chrome = FakeChrome([url] if url else [], headless=any(a.startswith("--headless") for a in argv))
    silent = env.get("PIX3_FAKE_CHROME_SILENT") == "1"
    ignore_close = env.get("PIX3_FAKE_CHROME_IGNORE_CLOSE") == "1"
    delay = int(env.get("PIX3_FAKE_CHROME_DELAY_MS", "0") or 0) / 1000
    buffer = b""
    while True:
        chunk = os.read(READ_FD, 1 << 20)
        if not chunk:
            return 0  # the owner is gone: Chrome exits with its pipe
        buffer += chunk
        *messages, buffer = buffer.split(b"\0")
        for message in messages:
            if silent:
                continue
            out = chrome.handle(message)
            if delay:
                time.sleep(delay)
            if not _write_all(b"".join(m + b"\0" for m in out)):
                return 0
            if chrome.closed and not ignore_close:
                return 0
            chrome.closed = False if ignore_close else chrome.closed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
