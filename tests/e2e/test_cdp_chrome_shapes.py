"""Real Chromium writes session messages in the shape the router splices without parsing
(docs/cdp-proxy.md, "Big messages"): ``{"id":N,`` or ``{"method":"…",`` first, ``,"sessionId":"…"}`` last. If a
Chrome release changed that, the proxy would stay correct but fall back to parsing every message;
this test says so instead of a bench slowly getting worse."""

from __future__ import annotations

import fcntl
import json
import os
import select
import subprocess
import time
from pathlib import Path

import pytest

from pix3net.wire.envelope import chrome_envelope
from tests.support.chrome import QUIET_CHROME_FLAGS

pytestmark = [pytest.mark.chromium, pytest.mark.e2e]


def test_chrome_session_messages_take_the_splice_path(chromium: str, tmp_path: Path) -> None:
    command_read, command_write = os.pipe()
    answer_read, answer_write = os.pipe()

    def into_3_and_4() -> None:
        high_read = fcntl.fcntl(command_read, fcntl.F_DUPFD, 10)
        high_write = fcntl.fcntl(answer_write, fcntl.F_DUPFD, 10)
        os.dup2(high_read, 3)
        os.dup2(high_write, 4)

    flags = ["--no-sandbox"] if os.geteuid() == 0 else []
    process = subprocess.Popen(
        [
            chromium,
            *flags,
            *QUIET_CHROME_FLAGS,
            "--headless=new",
            "--remote-debugging-pipe",
            f"--user-data-dir={tmp_path / 'profile'}",
            "about:blank",
        ],
        preexec_fn=into_3_and_4,
        close_fds=False,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(command_read)
    os.close(answer_write)
    buffer = b""
    received: list[bytes] = []

    def send(message: dict[str, object]) -> None:
        os.write(command_write, json.dumps(message).encode() + b"\0")

    def until_reply(message_id: int) -> dict[str, object]:
        nonlocal buffer
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                received.append(raw)
                if raw.startswith(b'{"id":%d,' % message_id):
                    return dict(json.loads(raw))
            ready, _, _ = select.select([answer_read], [], [], 0.5)
            if ready:
                chunk = os.read(answer_read, 1 << 20)
                assert chunk, "Chromium closed its pipe"
                buffer += chunk
        raise AssertionError(f"no answer to {message_id}")

    try:
        send({"id": 1, "method": "Target.getTargets"})
        targets = until_reply(1)["result"]["targetInfos"]  # type: ignore[index]
        page = next(t["targetId"] for t in targets if t["type"] == "page")
        send({"id": 2, "method": "Target.attachToTarget", "params": {"targetId": page, "flatten": True}})
        session = until_reply(2)["result"]["sessionId"]  # type: ignore[index]
        for n, method in enumerate(["Page.enable", "Runtime.enable", "Page.reload", "Nope.nope"], start=3):
            send({"id": n, "method": method, "sessionId": session})
        send(
            {
                "id": 7,
                "method": "Runtime.evaluate",
                "params": {"expression": "'x'.repeat(100000)", "returnByValue": True},
                "sessionId": session,
            }
        )
        until_reply(7)
    finally:
        os.close(command_write)
        process.kill()
        process.wait(timeout=10)
        os.close(answer_read)
    with_session = [raw for raw in received if json.loads(raw).get("sessionId") == session]
    assert len(with_session) >= 6
    for raw in with_session:
        envelope = chrome_envelope(raw)
        assert envelope is not None and envelope.session == session
        assert envelope.session_cut is not None and envelope.parsed is None, raw[:200]
