"""Challenge and proof: how a client learns that a port knows its token without sending it.

Local scope (byte-compatible with the TypeScript CLI; docs/cdp-proxy.md, "Proof"):
``X-Pix3-Proof = base64url_nopad(HMAC-SHA256(key=SHA-256(token), msg=challenge))``. The proxy
answers it, so the TypeScript CLI can prove our proxy; no client of ours trusts it, because it
names no port: a process squatting the port a client dials can relay the challenge to the real
proxy on another port and pass the answer back.

Port scope (ours, for local clients): the request adds ``X-Pix3-Proof-Scope: port``; the proxy
answers with an HMAC keyed by an HKDF of the token over ``"port\n<port>\n<challenge>"``, where
``<port>`` is the port its own listening socket is bound to — never a header, which a relay
writes. The client computes it for the port it dialled, so a relay on another port passes on a
proof that does not verify (and says which port the real proxy is on).

Forward scope (Remote SSH): the request adds ``X-Pix3-Proof-Scope: forward``;
the proxy answers only when the port named by the request's ``Host`` is listed in
``$PIX3_HOME/cdp-forward-ports.json`` (``{"ports": [9333, …]}``), with an HMAC keyed by an HKDF
of the token over ``"forward\\n<port>\\n<challenge>"``. The verifier computes it for the port it
dialled, so a relay reaching the proxy through another port gets a proof that does not verify.

A client asks with :func:`challenge_headers` and judges the answer with :func:`classify`, once
for all its transports (``pix3net.clients.probe`` on a plain socket for short commands, ``port`` over httpx
in trio code): the token is sent only to a port whose answer is ``ours``, which only a proof bound
to the port dialled (port or forward scope) earns.

Everything here is pure except :func:`read_forward_ports`, which reads that one small file.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pix3net.wire.hostrule import split_host
from pix3tools.core.ports import CDP_PORT, CDP_PORT_SPAN

CHALLENGE_HEADER = "X-Pix3-Challenge"
PROOF_HEADER = "X-Pix3-Proof"
SCOPE_HEADER = "X-Pix3-Proof-Scope"
FORWARD_SCOPE = "forward"
PORT_SCOPE = "port"
FORWARD_PORTS_FILE = "cdp-forward-ports.json"
# On every answer of the proxy (value "1"), refusals included: a port that has it is a Pix3 CDP proxy.
MARKER_HEADER = "X-Pix3-Cdp-Proxy"

# A challenge outside this shape is ignored (no proof header).
_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{16,128}")
_CHALLENGE_BYTES = 24  # → 32 base64url characters, as the reference's client nonce
_FORWARD_INFO = b"pix3 cdp proof forward v1"
_PORT_INFO = b"pix3 cdp proof port v1"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def is_valid_challenge(challenge: str) -> bool:
    return _CHALLENGE.fullmatch(challenge) is not None


def new_challenge() -> str:
    return _b64url(secrets.token_bytes(_CHALLENGE_BYTES))


def local_proof(token: str, challenge: str) -> str:
    """The reference's proof: the HMAC key is the raw SHA-256 of the token."""
    key = hashlib.sha256(token.encode("utf-8")).digest()
    return _b64url(hmac.new(key, challenge.encode("utf-8"), hashlib.sha256).digest())


def _hkdf(token: str, info: bytes) -> bytes:
    """HKDF-SHA256 of the token, no salt, 32 bytes (RFC 5869): one extract and one expand block,
    written with hmac: importing ``cryptography``'s HKDF costs 15 ms (measured), and every
    `pix3 editor` run now checks a port-scope proof. Same bytes as ``cryptography``'s and Node's
    ``hkdfSync`` (tests/unit/test_cdp_proof.py)."""
    prk = hmac.new(b"\0" * 32, token.encode("utf-8"), hashlib.sha256).digest()
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()


def forward_key(token: str) -> bytes:
    return _hkdf(token, _FORWARD_INFO)


def port_key(token: str) -> bytes:
    return _hkdf(token, _PORT_INFO)


def forward_proof(token: str, port: int, challenge: str, *, key: bytes | None = None) -> str:
    """The forward-scope proof for a request that reached the proxy as port ``port``."""
    message = f"forward\n{port}\n{challenge}".encode()
    return _b64url(hmac.new(key or forward_key(token), message, hashlib.sha256).digest())


def port_proof(token: str, port: int, challenge: str, *, key: bytes | None = None) -> str:
    """The port-scope proof of a proxy whose listening socket is bound to ``port``."""
    message = f"port\n{port}\n{challenge}".encode()
    return _b64url(hmac.new(key or port_key(token), message, hashlib.sha256).digest())


def host_port(host: str | None) -> int | None:
    """The explicit port of a ``Host`` header value (``127.0.0.1:9333``, ``[::1]:9333``), or None;
    read by the one Host parser (`pix3net.wire.hostrule`)."""
    parts = split_host(host) if host else None
    if parts is None or parts[1] is None:
        return None
    return parts[1] if 0 < parts[1] < 65536 else None


def answer_proof(
    token: str,
    *,
    challenge: str | None,
    scope: str | None,
    host: str | None,
    forward_ports: Iterable[int] | None,
    listen_port: int | None = None,
    forward_key_bytes: bytes | None = None,
    port_key_bytes: bytes | None = None,
) -> str | None:
    """The ``X-Pix3-Proof`` value the proxy puts on its answer, or None (no header).

    ``forward_ports`` is only consulted for a forward-scope request (pass the ports read from
    the file, or None when the file is absent/unreadable). ``listen_port``: the port the proxy's
    listening socket is bound to, the only port a port-scope proof is ever for.
    """
    if challenge is None or not is_valid_challenge(challenge):
        return None
    if scope is None:
        return local_proof(token, challenge)
    scope = scope.strip().lower()
    if scope == PORT_SCOPE:
        return None if listen_port is None else port_proof(token, listen_port, challenge, key=port_key_bytes)
    if scope != FORWARD_SCOPE:
        return None
    port = host_port(host)
    if port is None or forward_ports is None or port not in set(forward_ports):
        return None
    return forward_proof(token, port, challenge, key=forward_key_bytes)


def verify_proof(token: str, challenge: str, proof: str | None, *, port: int, forward: bool = False) -> bool:
    """True when ``proof`` is the proof of ``token`` for ``challenge`` bound to ``port``, the port
    dialled (constant-time compare): the port scope, or the forward scope with ``forward``. There
    is deliberately no way to verify the unbound local proof here: a relay passes it on."""
    if proof is None:
        return False
    expected = forward_proof(token, port, challenge) if forward else port_proof(token, port, challenge)
    given = proof.strip().encode("ascii", "replace")
    return len(given) == len(expected) and hmac.compare_digest(given, expected.encode("ascii"))


def challenge_headers(challenge: str, *, forward: bool = False) -> dict[str, str]:
    """The headers of a proof request: the challenge and the scope (port, or forward), never the token."""
    return {CHALLENGE_HEADER: challenge, SCOPE_HEADER: FORWARD_SCOPE if forward else PORT_SCOPE}


def _relayed_to(token: str, challenge: str, given: str | None, port: int, candidates: Iterable[int]) -> int | None:
    """The port other than ``port`` whose port-scope proof ``given`` is: our proxy listens there
    and something on ``port`` passed our request on to it."""
    if given is None:
        return None
    key = port_key(token)
    value = given.strip().encode("ascii", "replace")  # a header is latin-1: never a str compare_digest refuses
    for other in candidates:
        if other != port and hmac.compare_digest(value, port_proof(token, other, challenge, key=key).encode()):
            return other
    return None


class Verdict(NamedTuple):
    """What a proof request says of a port. ``ours``: it proved it knows the token for the port
    dialled; ``foreign``: something answered HTTP without that proof (``proxy``: a Pix3 CDP proxy,
    by its marker; ``relay``: the port of our own proxy whose proof came back, passed on by
    whatever holds the port dialled); ``closed``: nothing answered HTTP. A NamedTuple:
    ``dataclasses`` would cost `pix3 editor` 13 ms of imports (inspect, ast; measured with -X importtime)."""

    kind: Literal["ours", "foreign", "closed"]
    detail: str = ""
    proxy: bool = False
    relay: int | None = None


def classify(
    status: int | None,
    headers: Mapping[str, str],
    *,
    port: int,
    token: str | None,
    challenge: str,
    forward: bool = False,
    also: Iterable[int] = (),
    holder: Callable[[int], str] | None = None,
) -> Verdict:
    """Judge the answer to a proof request sent to ``port`` with ``challenge`` (docs/cdp-proxy.md,
    "Client side"). ``status`` None: no HTTP answer (refused, reset, timeout, not HTTP).
    ``headers``: names lowercased, or a case-insensitive mapping. ``token`` None: no token to
    check the proof against (never ``ours``). Only a proof bound to ``port`` makes it ``ours``.
    A port-scope proof for another port — one of the CDP range or ``also`` (the owner's recorded
    port) — is a relay's: the detail names our proxy's real port. ``holder``: asked who holds
    ``port`` for the detail of a foreign port (`pix3net.daemon.pids.port_holder`; only then, it reads /proc)."""
    if status is None:
        return Verdict("closed")
    given = headers.get(PROOF_HEADER.lower())
    if token is not None and verify_proof(token, challenge, given, port=port, forward=forward):
        return Verdict("ours")
    who = holder(port) if holder is not None else ""
    relay = None if token is None or forward else _relayed_to(token, challenge, given, port, _candidates(also))
    if relay is not None:
        by = f" ({who})" if who else ""
        detail = (
            f"port {port} is held by another process{by} that passes requests on to our CDP proxy on port"
            f" {relay}; the token was not sent to it"
        )
        return Verdict("foreign", detail, proxy=True, relay=relay)
    answered = f"HTTP {status}; {who}" if who else f"HTTP {status}"
    if headers.get(MARKER_HEADER.lower()) == "1":
        detail = (
            f"port {port} is a Pix3 CDP proxy that does not know this token ({answered}): another user's, or one"
            " started with another PIX3_HOME"
            + ("" if forward else ", or one that cannot prove it for this port (an older pix3, or one behind a relay)")
        )
        return Verdict("foreign", detail, proxy=True)
    return Verdict("foreign", f"port {port} is in use by something that is not a Pix3 CDP proxy ({answered})")


def _candidates(also: Iterable[int]) -> list[int]:
    """Where a relay's real proxy may listen: the CDP range `pix3 editor` picks from, and ``also``."""
    return [*range(CDP_PORT, CDP_PORT + CDP_PORT_SPAN + 1), *also]


def page_urls(targets: Any) -> list[str]:
    """The URLs of the page targets of a ``/json/list`` answer (an entry without a type is a page)."""
    if not isinstance(targets, list):
        return []
    return [str(t.get("url", "")) for t in targets if isinstance(t, dict) and t.get("type") in (None, "page")]


def parse_forward_ports(text: str) -> frozenset[int] | None:
    """The ports of a ``cdp-forward-ports.json`` text, or None when it is not that shape."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    ports = data.get("ports") if isinstance(data, dict) else None
    if not isinstance(ports, list):
        return None
    return frozenset(p for p in ports if isinstance(p, int) and not isinstance(p, bool) and 0 < p < 65536)


def read_forward_ports(home: Path) -> frozenset[int] | None:
    """The listed forward ports of ``$PIX3_HOME/cdp-forward-ports.json``; None when absent/bad."""
    try:
        text = (home / FORWARD_PORTS_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return parse_forward_ports(text)
