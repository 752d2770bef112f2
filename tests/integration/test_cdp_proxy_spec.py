"""The proxy's contract (docs/cdp-proxy.md: routes, auth, proof, sessions, Chrome gone) against
`serve_proxy` over the in-memory fake Chrome (real sockets, httpx
for HTTP, pix3's WebSocket client and trio-websocket)."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import httpx
import pytest
import trio
import trio_websocket

from pix3net.clients.cdptrio import Closed
from pix3net.clients.port import prove_proxy
from pix3net.wire import proof
from tests.support.cdp_proxy import (
    AUTH,
    EDITOR_URL,
    GOOD,
    TOKEN,
    before_reply,
    connect,
    parse_answer,
    poll_until,
    raw_exchange,
    rpc,
    running_proxy,
    upgrade_request,
)

BEARER = {"Authorization": f"Bearer {TOKEN}"}


async def test_1_no_headers_is_401_with_marker_and_realm(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy, httpx.AsyncClient() as http:
        answer = await http.get(f"{proxy.base}/json/version")
        assert answer.status_code == 401
        assert answer.headers["X-Pix3-Cdp-Proxy"] == "1"
        assert "Bearer" in answer.headers["WWW-Authenticate"]
        assert answer.headers["Content-Type"] == "application/json; charset=UTF-8"
        assert answer.text == json.dumps(
            {"error": 'missing "Authorization: Bearer <token>" (the token is in ~/.pix3/cdp-token)'}, indent=2
        )
        assert "X-Pix3-Proof" not in answer.headers
        assert any("refused GET /json/version: missing" in line for line in proxy.logs)


async def test_2_wrong_or_schemeless_token_is_401(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy, httpx.AsyncClient() as http:
        wrong = await http.get(f"{proxy.base}/json/list", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.json()["error"].startswith("wrong token")
        bare = await http.get(f"{proxy.base}/json/list", headers={"Authorization": TOKEN})
        assert bare.status_code == 401 and bare.json()["error"].startswith("missing")
        assert TOKEN not in "\n".join(proxy.logs)


async def test_3_origin_is_403(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy, httpx.AsyncClient() as http:
        for origin in ("https://evil.example", "null", ""):
            answer = await http.get(f"{proxy.base}/json/list", headers={**BEARER, "Origin": origin})
            assert answer.status_code == 403, origin
            assert answer.headers["X-Pix3-Cdp-Proxy"] == "1"


@pytest.mark.parametrize(
    "host_lines",
    [
        b"Host: evil.example:80\r\n",
        b"Host: evil.com\r\n",
        b"Host: localhost.evil.com\r\n",
        b"Host: 127.0.0.1.nip.io\r\n",
        b"Host: 127.evil.example:9333\r\n",
        b"Host: 127.1:9333\r\n",
        b"",
        b"Host: 127.0.0.1\r\nHost: evil.com\r\n",
    ],
)
async def test_4_rebinding_hosts_are_403(tmp_path: Path, host_lines: bytes) -> None:
    async with running_proxy(tmp_path) as proxy:
        request = b"GET /json/version HTTP/1.1\r\n" + host_lines + b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"
        request += b"X-Pix3-Challenge: " + b"c" * 20 + b"\r\nConnection: close\r\n\r\n"
        status, headers, body = parse_answer(await raw_exchange(proxy.port, request))
        assert status == 403
        assert json.loads(body)["error"].endswith("is not a loopback address")
        assert headers["x-pix3-cdp-proxy"] == "1"
        assert headers["x-pix3-proof"] == proof.local_proof(TOKEN, "c" * 20)  # refusals carry the proof


async def test_4_every_loopback_address_is_a_host(tmp_path: Path) -> None:
    """The one Host rule (pix3net/wire/hostrule.py): any canonical 127.x.y.z names this machine."""
    async with running_proxy(tmp_path) as proxy, httpx.AsyncClient() as http:
        for host in ("127.0.0.2:9333", "127.0.0.1:9333", "[::1]:9333", "LOCALHOST"):
            answer = await http.get(f"{proxy.base}/json/version", headers={**BEARER, "Host": host})
            assert answer.status_code == 200, host


async def test_5_version(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy, httpx.AsyncClient() as http:
        answer = await http.get(f"{proxy.base}/json/version", headers=BEARER)
        assert answer.status_code == 200
        body = answer.json()
        assert list(body) == [
            "Browser",
            "Protocol-Version",
            "User-Agent",
            "V8-Version",
            "WebKit-Version",
            "Pix3-Cdp-Proxy",
            "webSocketDebuggerUrl",
        ]
        assert body["Browser"] == "FakeChrome/1.0" and body["Pix3-Cdp-Proxy"] == 1
        assert body["webSocketDebuggerUrl"] == f"ws://127.0.0.1:{proxy.port}/pix3"
        # cached: a second answer makes no second Browser.getVersion
        await http.get(f"{proxy.base}/json/version", headers=BEARER)
        assert proxy.channel.methods().count("Browser.getVersion") == 1
        # the Host header is echoed (a forward names its own port)
        other = await http.get(f"{proxy.base}/json/version", headers={**BEARER, "Host": "localhost:9444"})
        assert other.json()["webSocketDebuggerUrl"] == "ws://localhost:9444/pix3"


async def test_6_list_and_404s(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy, httpx.AsyncClient() as http:
        page = proxy.chrome.pages()[0]
        listed = await http.get(f"{proxy.base}/json/list", headers=BEARER)
        assert listed.json() == [
            {
                "description": "",
                "id": page.id,
                "title": EDITOR_URL,
                "type": "page",
                "url": EDITOR_URL,
                "webSocketDebuggerUrl": f"ws://127.0.0.1:{proxy.port}/pix3/page/{page.id}",
            }
        ]
        assert (await http.get(f"{proxy.base}/json", headers=BEARER)).status_code == 200
        assert (await http.get(f"{proxy.base}/json/list/", headers=BEARER)).status_code == 200
        new = await http.get(f"{proxy.base}/json/new?about:blank", headers=BEARER)
        assert new.status_code == 404
        assert new.json() == {"error": "no GET /json/new here (only /json/version and /json/list)"}
        root = await http.get(f"{proxy.base}/", headers=BEARER)
        assert root.json() == {"error": "no GET  here (only /json/version and /json/list)"}
        head = await http.head(f"{proxy.base}/json/version", headers=BEARER)
        assert head.status_code == 404 and head.content == b"" and int(head.headers["Content-Length"]) > 0
        # the keep-alive connection is still in step after the HEAD
        assert (await http.get(f"{proxy.base}/json/version", headers=BEARER)).status_code == 200


async def _ws_refused(port: int, path: str, headers: list[tuple[str, str]]) -> tuple[int, dict[str, str], bytes]:
    return parse_answer(await raw_exchange(port, upgrade_request(path, headers)))


async def test_7_upgrade_refusals_are_plain_http(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy:
        assert (await _ws_refused(proxy.port, "/pix3", []))[0] == 401
        assert (await _ws_refused(proxy.port, "/pix3", [("Authorization", "Bearer nope")]))[0] == 401
        assert (await _ws_refused(proxy.port, "/pix3", [*GOOD, ("Origin", "https://evil.example")]))[0] == 403
        assert (await _ws_refused(proxy.port, "/devtools/browser/x", GOOD))[0] == 404
        status, headers, body = await _ws_refused(proxy.port, "/pix3/page/NOPE", GOOD)
        assert (status, body) == (404, b"Target.attachToTarget: No target with given id found")
        assert headers["x-pix3-cdp-proxy"] == "1" and headers["content-type"] == "text/plain"
        assert proxy.channel.methods() == ["Target.attachToTarget"]
        for path in ("/pix3/", "/pix3/page/", "/json/version", "/pix3/page/%E0", "/pix3/page/%zz", "/pix3/page/%"):
            status, _, body = await _ws_refused(proxy.port, path, GOOD)
            assert status == 404 and body.endswith(b"(the browser is at /pix3)"), path
        assert proxy.channel.methods() == ["Target.attachToTarget"]
        assert proxy.chrome.sessions == {}


async def test_7b_ws_refusal_bytes_have_no_proof(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy:
        request = (
            b"GET /pix3 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"X-Pix3-Challenge: " + b"c" * 20 + b"\r\n\r\n"
        )
        message = b'missing "Authorization: Bearer <token>" (the token is in ~/.pix3/cdp-token)'
        assert (
            await raw_exchange(proxy.port, request)
            == (
                b"HTTP/1.1 401 Unauthorized\r\nX-Pix3-Cdp-Proxy: 1\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                b"Content-Length: %d\r\n\r\n" % len(message)
            )
            + message
        )
        assert any(line.startswith("refused WebSocket /pix3: missing") for line in proxy.logs)


async def test_8_proof(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy:
        assert (await prove_proxy(proxy.port, TOKEN)).kind == "ours"
        other = await prove_proxy(proxy.port, "b" * 43)
        assert other.kind == "foreign" and "does not know this token" in other.detail

    # a squatter: 401 with the marker, echoing the challenge as its "proof"
    async def squatter(stream: trio.SocketStream) -> None:
        data = await stream.receive_some(65536)
        challenge = [
            line.split(b":", 1)[1].strip()
            for line in data.split(b"\r\n")
            if line.lower().startswith(b"x-pix3-challenge")
        ]
        await stream.send_all(
            b"HTTP/1.1 401 Unauthorized\r\nX-Pix3-Cdp-Proxy: 1\r\nX-Pix3-Proof: "
            + challenge[0]
            + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        [listener] = await nursery.start(partial(trio.serve_tcp, squatter, 0, host="127.0.0.1"))
        port = listener.socket.getsockname()[1]
        squatted = await prove_proxy(port, TOKEN)
        assert squatted.kind == "foreign" and "does not know this token" in squatted.detail
        nursery.cancel_scope.cancel()
    assert (await prove_proxy(port, TOKEN)).kind == "closed"


async def test_9_same_client_ids_on_two_clients(tmp_path: Path) -> None:
    # one of the two is a third-party client (trio-websocket): the proxy speaks plain RFC 6455
    async with (
        running_proxy(tmp_path) as proxy,
        connect(proxy.ws()) as a,
        trio_websocket.open_websocket_url(proxy.ws(), extra_headers=AUTH) as b,
    ):
        reply = await rpc(a, {"id": 7, "method": "Browser.getVersion"})
        assert reply["id"] == 7 and reply["result"]["product"] == "FakeChrome/1.0" and "sessionId" not in reply
        await b.send_message(json.dumps({"id": 7, "method": "Browser.getVersion"}))
        for reply in [json.loads(await b.get_message())]:
            assert reply["id"] == 7 and reply["result"]["product"] == "FakeChrome/1.0" and "sessionId" not in reply
        calls = [m for m in proxy.chrome.received if m["method"] == "Browser.getVersion"]
        assert len({m["id"] for m in calls}) == 2 and len({m["sessionId"] for m in calls}) == 2
        assert all(proxy.chrome.sessions[m["sessionId"]].kind == "browser" for m in calls)


async def test_10_routing(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, ("about:blank",)) as proxy, connect(proxy.ws()) as a, connect(proxy.ws()) as b:
        await a.send(
            json.dumps(
                {
                    "id": 1,
                    "method": "Target.setAutoAttach",
                    "params": {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True},
                }
            )
        )
        event = json.loads(await a.receive())
        assert event["method"] == "Target.attachedToTarget" and "sessionId" not in event
        child = event["params"]["sessionId"]
        assert (json.loads(await a.receive()))["id"] == 1
        await a.send(json.dumps({"id": 2, "method": "Fake.ping", "sessionId": child}))
        pinged = json.loads(await a.receive())
        assert pinged == {"method": "Fake.pinged", "params": {"by": child}, "sessionId": child}
        assert json.loads(await a.receive()) == {"id": 2, "result": {"pong": True}, "sessionId": child}
        assert await before_reply(b, {"id": 90, "method": "Browser.getVersion"}) == []
        stolen = await rpc(b, {"id": 3, "method": "Runtime.evaluate", "sessionId": child})
        assert stolen["error"] == {"code": -32001, "message": "Session with given id not found."}
        evaluated = await rpc(
            a, {"id": 4, "method": "Runtime.evaluate", "params": {"expression": "1 + 1"}, "sessionId": child}
        )
        assert evaluated["result"] == {"result": {"type": "object", "value": {"expression": "1 + 1", "session": child}}}


async def test_11_page_client(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL, "about:blank")) as proxy:
        page = proxy.chrome.pages()[1]  # not the editor tab (the first): clients may close it
        async with connect(proxy.ws(f"/pix3/page/{page.id}")) as pc, connect(proxy.ws()) as browser:
            reply = await rpc(pc, {"id": 1, "method": "Runtime.evaluate", "params": {"expression": "x"}})
            assert "sessionId" not in reply
            assert proxy.chrome.sessions[reply["result"]["result"]["value"]["session"]].target == page.id
            await rpc(browser, {"id": 1, "method": "Target.closeTarget", "params": {"targetId": page.id}})
            with trio.fail_after(5), pytest.raises(Closed) as closed:
                while True:
                    await pc.receive()
            assert closed.value.code == 1000


async def test_12_departing_client_is_detached_with_children(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, ("about:blank",)) as proxy, connect(proxy.ws()) as b:
        async with connect(proxy.ws()) as a:
            await rpc(a, {"id": 1, "method": "Target.setAutoAttach", "params": {"autoAttach": True, "flatten": True}})
            assert len(proxy.chrome.sessions) == 3
        await poll_until(lambda: len(proxy.chrome.sessions) == 1)
        [left] = proxy.chrome.sessions.values()
        assert left.kind == "browser"
        assert (await rpc(b, {"id": 2, "method": "Browser.getVersion"}))["result"]["product"] == "FakeChrome/1.0"
        assert any(line == "client gone (1 left)" for line in proxy.logs)


async def test_13_bad_messages_reach_nothing(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy, connect(proxy.ws()) as ws:
        await ws.send("not json")
        await ws.send('{"id":3}')
        codes = [json.loads(await ws.receive())["error"]["code"] for _ in range(2)]
        assert codes == [-32700, -32600]
        assert proxy.channel.methods() == ["Target.attachToBrowserTarget"]


async def test_14_chrome_gone_closes_clients_1001(tmp_path: Path) -> None:
    async with (
        running_proxy(tmp_path) as proxy,
        connect(proxy.ws()) as a,
        connect(proxy.ws()) as b,
        httpx.AsyncClient() as http,
    ):
        proxy.channel.gone()
        for ws in (a, b):
            with trio.fail_after(5), pytest.raises(Closed) as closed:
                await ws.receive()
            assert closed.value.code == 1001
        with trio.fail_after(5):
            await proxy.served.wait()  # serve_proxy returned by itself
        with pytest.raises(httpx.TransportError):
            await http.get(f"{proxy.base}/json/version", headers=BEARER)
