"""Fast versions of the soak's proxy faults (`just soak` runs them at size with real Chromium):
a reconnect storm, clients reset in the middle of a 30 MB reply, 100 000-deep JSON and text
frames that are not UTF-8. Each is answered as documented and the other clients never notice."""

from __future__ import annotations

import json
import socket
import struct
from pathlib import Path

import pytest
import trio

from pix3net.clients.cdptrio import Closed, WsClient
from tests.support.cdp_proxy import GOOD, connect, poll_until, rpc, running_proxy

MiB = 1024 * 1024


def masked(payload: bytes, opcode: int = 0x1) -> bytes:
    """A client frame with a zero mask key: the payload goes as is."""
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    return head + b"\0\0\0\0" + payload


async def test_reconnect_storm_leaves_nothing_behind(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, ("about:blank",)) as proxy, connect(proxy.ws()) as steady:
        page = proxy.chrome.pages()[0].id

        async def churn(task: int) -> None:
            for n in range(25):
                async with connect(proxy.ws(f"/pix3/page/{page}")) as ws:
                    reply = await rpc(ws, {"id": n, "method": "Runtime.evaluate", "params": {"expression": f"{task}"}})
                    assert reply["result"]["result"]["value"]["expression"] == f"{task}"

        async with trio.open_nursery() as nursery:
            for task in range(8):
                nursery.start_soon(churn, task)
        await poll_until(lambda: len(proxy.chrome.sessions) == 1)  # only the steady client's root
        assert proxy.channel.methods().count("Target.detachFromTarget") == 200
        assert (await rpc(steady, {"id": 1, "method": "Browser.getVersion"}))["id"] == 1


async def test_clients_reset_mid_30_mb_reply(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy, connect(proxy.ws()) as steady:
        for n in range(3):
            ws = await WsClient.connect(proxy.port, "/pix3", GOOD)
            await ws.send(json.dumps({"id": n, "method": "Fake.big", "params": {"bytes": 30 * MiB}}))
            got = 0
            with trio.fail_after(10):
                while got < 2 * MiB:  # part of the reply, then gone without a word
                    got += len(await ws.stream.receive_some(256 * 1024))
            ws.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            await ws.stream.aclose()
            await poll_until(lambda: proxy.router_clients() == 1)
        assert (await rpc(steady, {"id": 1, "method": "Browser.getVersion"}))["id"] == 1
        assert not any("connection failed" in line for line in proxy.logs)


async def test_deeply_nested_json_is_refused_not_crashed(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy, connect(proxy.ws()) as ws:
        deep = b'{"id":1,"method":"X","params":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        for text in (deep, b"[" * 100_000 + b"]" * 100_000, b"{" * 50_000):
            await ws.stream.send_all(masked(text))
            with trio.fail_after(10):
                reply = json.loads(await ws.receive())
            assert reply == {"id": 0, "error": {"code": -32700, "message": "Message must be valid JSON"}}
        assert proxy.channel.methods() == ["Target.attachToBrowserTarget"]  # nothing reached Chrome
        assert (await rpc(ws, {"id": 2, "method": "Browser.getVersion"}))["id"] == 2


@pytest.mark.parametrize(
    ("frames", "code"),
    [
        (masked(b'{"id":1,"method":"\xed\xa0\x80"}'), 1007),  # a text frame that is not UTF-8
        (masked(b"x", 0x3), 1002),  # an opcode RFC 6455 does not define
        (b"\x81\x05hello", 1002),  # an unmasked client frame
    ],
)
async def test_broken_frames_close_with_the_rfc_code(tmp_path: Path, frames: bytes, code: int) -> None:
    async with running_proxy(tmp_path) as proxy, connect(proxy.ws()) as other:
        async with await WsClient.connect(proxy.port, "/pix3", GOOD) as ws:
            await ws.stream.send_all(frames)
            with trio.fail_after(10), pytest.raises(Closed) as closed:
                await ws.receive()
            assert closed.value.code == code
        await poll_until(lambda: proxy.router_clients() == 1)
        assert (await rpc(other, {"id": 1, "method": "Browser.getVersion"}))["id"] == 1


async def test_a_deep_session_id_is_answered_and_the_proxy_lives_on(tmp_path: Path) -> None:
    """A sessionId nested just below the parser's depth limit parses, but dumping it again for
    the -32001 echo went one level deeper (RecursionError in the hot path's thread, which took
    every client and the proxy down). Every depth gets an answer; the others never notice."""
    async with running_proxy(tmp_path) as proxy, connect(proxy.ws()) as other, connect(proxy.ws()) as ws:
        for depth in range(900, 1001):
            nested = "[" * depth + "]" * depth
            await ws.send('{"id":1,"method":"X","sessionId":' + nested + "}")
            with trio.fail_after(10):
                reply = await ws.receive()  # echoes the session: too deep for json.loads here
            assert reply.startswith(('{"id":1,"error":{"code":-32001,', '{"id":0,"error":{"code":-32700,')), depth
        assert (await rpc(other, {"id": 2, "method": "Browser.getVersion"}))["id"] == 2
        assert (await rpc(ws, {"id": 3, "method": "Browser.getVersion"}))["id"] == 3
        assert not any("error" in line or "failed" in line for line in proxy.logs), proxy.logs
