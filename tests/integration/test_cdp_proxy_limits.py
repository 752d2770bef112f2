"""The proxy's limits under hostile input and slow clients: a cut client hears 1008, all
clients together are bounded, connections that do not ask in time are closed, the number of
connections is capped, the owner outlives its file-descriptor limit, and /json/list shows no
Chrome UI. Small limits here; `just soak` runs the same faults at full size."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import trio
import trio.testing

from pix3net.clients.cdptrio import Closed, WsClient
from pix3net.owner.proxy.transport import Limits
from tests.support.cdp_proxy import GOOD, TOKEN, connect, parse_answer, poll_until, rpc, running_proxy

MiB = 1024 * 1024
BEARER = {"Authorization": f"Bearer {TOKEN}"}


async def stalled_client(port: int) -> WsClient:
    return await WsClient.connect(port, "/pix3", GOOD)


async def ask_big(ws: WsClient, count: int, size: int = MiB, first_id: int = 0) -> None:
    for n in range(first_id, first_id + count):
        await ws.send(json.dumps({"id": n, "method": "Fake.big", "params": {"bytes": size}}))


async def read_until_closed(ws: WsClient, seconds: float = 20) -> tuple[list[str], Closed]:
    """Everything the client still gets, then how it was closed (a missing close frame fails)."""
    got: list[str] = []
    with trio.fail_after(seconds):
        while True:
            try:
                got.append(await ws.receive())
            except Closed as closed:
                return got, closed


async def test_a_cut_client_gets_1008_after_whole_messages(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, queue_bytes=8 * MiB) as proxy, connect(proxy.ws()) as other:
        stalled = await stalled_client(proxy.port)
        async with stalled:
            # 1.5 MiB answers: each goes out as fragments, so the cut falls between fragments.
            await ask_big(stalled, 40, size=3 * MiB // 2)
            await poll_until(lambda: any("client too slow" in line for line in proxy.logs), 20)
            await trio.sleep(1.5)  # still not reading: longer than a hang-up waits for an answer
            got, closed = await read_until_closed(stalled)
        assert (closed.code, closed.reason) == (1008, "client too slow")
        for text in got:  # whole messages only: a cut message is never delivered as one
            assert len(json.loads(text)["result"]["data"]) == 3 * MiB // 2
        assert len(got) < 40
        await poll_until(lambda: proxy.router_clients() == 1)
        assert (await rpc(other, {"id": 1, "method": "Browser.getVersion"}))["id"] == 1


async def test_all_clients_together_are_bounded_largest_cut_first(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, queue_bytes=64 * MiB, owner_queue_bytes=112 * MiB) as proxy:
        big, middle, small = [await stalled_client(proxy.port) for _ in range(3)]
        async with big, middle, small:
            await ask_big(big, 60)
            await poll_until(lambda: proxy.channel.methods().count("Fake.big") == 60)
            await ask_big(middle, 40)
            await poll_until(lambda: proxy.channel.methods().count("Fake.big") == 100)
            assert not any("too slow" in line for line in proxy.logs)  # each is under its own bound
            await ask_big(small, 30)
            await poll_until(lambda: any("over the owner's" in line for line in proxy.logs), 20)
            _, closed = await read_until_closed(big)
            assert closed.code == 1008
            # the other two keep everything they asked for
            for ws, count in ((middle, 40), (small, 30)):
                with trio.fail_after(20):
                    for _ in range(count):
                        assert len(await ws.receive()) > MiB
        assert sum("too slow" in line for line in proxy.logs) == 1


async def test_idle_and_slow_heads_are_closed(tmp_path: Path) -> None:
    limits = Limits(head_seconds=0.5, keep_alive_seconds=0.3)
    async with running_proxy(tmp_path, limits=limits) as proxy:
        idle = await trio.open_tcp_stream("127.0.0.1", proxy.port)
        async with idle:
            start = trio.current_time()
            with trio.fail_after(5):
                said = bytearray()
                while chunk := await idle.receive_some(65536):
                    said += chunk
            assert trio.current_time() - start >= 0.4
            assert parse_answer(bytes(said))[0] == 408
        slow = await trio.open_tcp_stream("127.0.0.1", proxy.port)
        async with slow:
            answer = bytearray()
            with trio.fail_after(5):
                for byte in b"GET /jso":  # a byte every 50 ms, never the end of the head
                    await slow.send_all(bytes([byte]))
                    await trio.sleep(0.05)
                while chunk := await slow.receive_some(65536):
                    answer += chunk
            status, _, body = parse_answer(bytes(answer))
            assert status == 408
            assert json.loads(body) == {"error": "no complete request head within 0.5 s"}
        # a keep-alive connection is closed once idle between requests
        async with httpx.AsyncClient(base_url=proxy.base, headers=BEARER) as client:
            assert (await client.get("/json/version")).status_code == 200
        keep = await trio.open_tcp_stream("127.0.0.1", proxy.port)
        async with keep:
            await keep.send_all(
                b"GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN.encode()
            )
            await keep.send_all(b"\r\n\r\n")
            with trio.fail_after(5):
                data = bytearray()
                while chunk := await keep.receive_some(65536):
                    data += chunk
            assert parse_answer(bytes(data))[0] == 200


async def test_waiting_connections_make_room_and_the_cap_holds(tmp_path: Path) -> None:
    limits = Limits(max_connections=6, max_waiting_heads=3, head_seconds=30)
    async with running_proxy(tmp_path, limits=limits) as proxy:
        async with contextlib.AsyncExitStack() as stack:
            idle = [
                await stack.enter_async_context(await trio.open_tcp_stream("127.0.0.1", proxy.port)) for _ in range(3)
            ]
            await trio.testing.wait_all_tasks_blocked()  # the proxy has taken the three and waits for heads
            # a fourth connection is served: the one that waited longest makes room, and is told why
            async with httpx.AsyncClient(base_url=proxy.base, headers=BEARER) as client:
                assert (await client.get("/json/version")).status_code == 200
            with trio.fail_after(5):
                said = bytearray()
                while chunk := await idle[0].receive_some(65536):
                    said += chunk
            status, _, body = parse_answer(bytes(said))
            assert status == 503
            assert json.loads(body)["error"] == (
                "closed to make room: 3 connections were waiting to send a request and this one had waited longest"
            )
            # WebSocket clients are never evicted: six of them fill the places; a seventh is refused
            clients = [await stack.enter_async_context(connect(proxy.ws())) for _ in range(6)]
            with pytest.raises(Exception, match="503"):
                await WsClient.connect(proxy.port, "/pix3", GOOD)
            assert (await rpc(clients[0], {"id": 1, "method": "Browser.getVersion"}))["id"] == 1
        with trio.fail_after(5):
            while True:  # the places come back as the clients leave
                async with httpx.AsyncClient(base_url=proxy.base, headers=BEARER) as client:
                    if (await client.get("/json/version")).status_code == 200:
                        break
                await trio.sleep(0.05)


def test_the_proxy_outlives_its_file_descriptor_limit() -> None:
    proxy = subprocess.Popen(
        [sys.executable, "-m", "tests.support.cdp_proxy_process", "--nofile", "40", "--head-seconds", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proxy.stdout is not None and proxy.stdin is not None
    held: list[socket.socket] = []
    try:
        port = int(proxy.stdout.readline())
        for _ in range(80):  # more than the process has descriptors: accept fails with EMFILE
            held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        line = proxy.stdout.readline()
        assert "cannot accept connections (EMFILE" in line, line
        assert proxy.poll() is None
        for sock in held:
            sock.close()
        answer = None
        for _ in range(100):  # once the idle ones time out and close, it serves again
            with contextlib.suppress(httpx.HTTPError):
                answer = httpx.get(f"http://127.0.0.1:{port}/json/version", headers=BEARER, timeout=2)
                break
        assert answer is not None and answer.status_code == 200
        assert proxy.stdout.readline().strip().endswith("accepting connections again")
    finally:
        for sock in held:
            sock.close()
        proxy.stdin.close()
        proxy.wait(timeout=10)
        proxy.stdout.close()
    assert proxy.returncode == 0


async def test_json_list_shows_no_chrome_ui(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, ("http://localhost:5173/__pix3/",)) as proxy:
        proxy.chrome.add_target("browser_ui", "chrome://omnibox-popup.top-chrome/")
        proxy.chrome.add_target("service_worker", "http://localhost:5173/sw.js")
        async with httpx.AsyncClient(base_url=proxy.base, headers=BEARER) as client:
            listed = (await client.get("/json/list")).json()
        assert [entry["type"] for entry in listed] == ["page", "service_worker"]


async def test_a_client_that_pings_without_reading_is_cut(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy, connect(proxy.ws()) as other:
        flood = await stalled_client(proxy.port)
        async with flood:
            ping = b"\x89\xfd" + b"\0\0\0\0" + b"p" * 125  # masked (zero key) ping, 125 bytes
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                with trio.move_on_after(20):
                    for _ in range(2_000):  # 25 MB of pongs owed, never read
                        await flood.stream.send_all(ping * 100)
            await poll_until(lambda: any("bytes of pongs queued" in line for line in proxy.logs), 20)
        await poll_until(lambda: proxy.router_clients() == 1)
        assert (await rpc(other, {"id": 1, "method": "Browser.getVersion"}))["id"] == 1
