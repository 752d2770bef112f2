"""The forward scope of the proof (docs/cdp-proxy.md, "Proof") through the real proxy: only a port listed
in cdp-forward-ports.json gets a forward proof, and a relay that reaches the proxy through
another port cannot turn it into a proof for the port its victim dialled."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import httpx
import trio

from pix3net.clients.port import prove_proxy
from pix3net.wire import proof
from tests.support.cdp_proxy import TOKEN, running_proxy

CHALLENGE = "c" * 24


async def test_forward_proof_only_for_listed_ports(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy, httpx.AsyncClient(trust_env=False) as http:
        headers = {proof.CHALLENGE_HEADER: CHALLENGE, proof.SCOPE_HEADER: "forward"}
        unlisted = await http.get(f"{proxy.base}/json/version", headers=headers)
        assert unlisted.status_code == 401 and proof.PROOF_HEADER not in unlisted.headers
        assert (await prove_proxy(proxy.port, TOKEN, forward=True)).kind == "foreign"
        (tmp_path / proof.FORWARD_PORTS_FILE).write_text(json.dumps({"ports": [proxy.port]}))
        listed = await http.get(f"{proxy.base}/json/version", headers=headers)
        assert listed.headers[proof.PROOF_HEADER] == proof.forward_proof(TOKEN, proxy.port, CHALLENGE)
        assert (await prove_proxy(proxy.port, TOKEN, forward=True)).kind == "ours"
        assert (await prove_proxy(proxy.port, TOKEN)).kind == "ours"  # the port scope is unchanged
        # the forward proof is neither the local one nor the port one
        assert listed.headers[proof.PROOF_HEADER] != proof.local_proof(TOKEN, CHALLENGE)
        assert listed.headers[proof.PROOF_HEADER] != proof.port_proof(TOKEN, proxy.port, CHALLENGE)


async def test_port_proof_is_for_the_port_the_proxy_listens_on(tmp_path: Path) -> None:
    """The reference's request still gets the reference's proof (the TypeScript CLI proves us with
    it); the port scope is bound to the listening socket's port, never to the Host header."""
    async with running_proxy(tmp_path) as proxy, httpx.AsyncClient(trust_env=False) as http:
        plain = await http.get(f"{proxy.base}/json/version", headers={proof.CHALLENGE_HEADER: CHALLENGE})
        assert plain.headers[proof.PROOF_HEADER] == proof.local_proof(TOKEN, CHALLENGE)
        headers = {proof.CHALLENGE_HEADER: CHALLENGE, proof.SCOPE_HEADER: "port", "Host": "127.0.0.1:9333"}
        bound = await http.get(f"{proxy.base}/json/version", headers=headers)
        assert bound.status_code == 401
        assert bound.headers[proof.PROOF_HEADER] == proof.port_proof(TOKEN, proxy.port, CHALLENGE)


async def test_a_relay_through_another_port_does_not_verify(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy:
        (tmp_path / proof.FORWARD_PORTS_FILE).write_text(json.dumps({"ports": [proxy.port]}))

        async def relay(client: trio.SocketStream) -> None:
            # A squatter on another port: passes requests on, naming the listed port in Host.
            head = b""
            while b"\r\n\r\n" not in head:
                head += await client.receive_some(65536)
            lines = [
                f"Host: 127.0.0.1:{proxy.port}".encode() if line.lower().startswith(b"host:") else line
                for line in head.split(b"\r\n")
            ]
            upstream = await trio.open_tcp_stream("127.0.0.1", proxy.port)
            async with upstream:
                await upstream.send_all(b"\r\n".join(lines))
                while data := await upstream.receive_some(65536):
                    await client.send_all(data)
                    if b"\r\n\r\n" in data:
                        break
            await client.aclose()

        async with trio.open_nursery() as nursery:
            [listener] = await nursery.start(partial(trio.serve_tcp, relay, 0, host="127.0.0.1"))
            relay_port = listener.socket.getsockname()[1]
            relayed = await prove_proxy(relay_port, TOKEN, forward=True)
            assert relayed.kind == "foreign" and "does not know this token" in relayed.detail
            # the port scope is bound to the proxy's own socket, whatever Host the relay writes
            local = await prove_proxy(relay_port, TOKEN)
            assert local.kind == "foreign" and local.relay is None  # the proxy's port is not in the CDP range
            nursery.cancel_scope.cancel()
