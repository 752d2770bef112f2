"""Who may talk to the proxy: Origin → Host → Bearer (docs/cdp-proxy.md, "Auth"), and the answer headers.

Pure: fed the request's header list, returns a :class:`AuthRefusal` or None. The same checks guard
plain HTTP requests and WebSocket upgrades, before any upgrade or attach.
The token is compared as SHA-256 digests in constant time and never appears in a message.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pix3net.wire.hostrule import host_allowed
from pix3net.wire.proof import MARKER_HEADER as MARKER_NAME
from pix3net.wire.proof import PROOF_HEADER

# Header list as the transport parsed it: names lowercased, values latin-1 decoded, in order.
Headers = Sequence[tuple[str, str]]

MARKER_HEADER = (MARKER_NAME, "1")
JSON_CONTENT_TYPE = ("Content-Type", "application/json; charset=UTF-8")
WWW_AUTHENTICATE = ("WWW-Authenticate", 'Bearer realm="pix3"')

ORIGIN_REFUSED = "CDP is not open to web pages (Origin header present)"
BEARER_MISSING = 'missing "Authorization: Bearer <token>" (the token is in ~/.pix3/cdp-token)'
BEARER_WRONG = "wrong token (the proxy expects the one in ~/.pix3/cdp-token)"

# Scheme case-insensitive, one or more whitespace, a token without whitespace, optional trailing
# whitespace. Anything else — the bare token included — is "missing".
_BEARER = re.compile(r"Bearer\s+(\S+)\s*", re.IGNORECASE)

REASONS = {
    101: "Switching Protocols",
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


@dataclass(frozen=True)
class AuthRefusal:
    """Why the proxy's auth check refused a request: its status (401/403) and the plain message
    of its ``{"error": message}`` answer. Not the dev server's API ``Refusal`` (a status, an
    error code and a message, JSON-shaped for the file API's clients): a different answer."""

    status: int
    message: str


def token_digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def header_values(headers: Headers, name: str) -> list[str]:
    return [value for key, value in headers if key == name]


def header(headers: Headers, name: str) -> str | None:
    """The single value of ``name``; None when absent (duplicates joined with ", ")."""
    values = header_values(headers, name)
    return ", ".join(values) if values else None


def check_request(headers: Headers, expected_digest: bytes) -> AuthRefusal | None:
    """None when the request may proceed; else the refusal to answer with."""
    if header_values(headers, "origin"):
        return AuthRefusal(403, ORIGIN_REFUSED)
    hosts = header_values(headers, "host")
    # The one Host rule (`pix3net.wire.hostrule`): a loopback name, once. The proxy has no public
    # names: a forward reaches it as localhost on another port (docs/cdp-proxy.md, "Proof").
    if not host_allowed(hosts):
        full_host = ", ".join(hosts).lower()
        return AuthRefusal(403, f'Host "{full_host}" is not a loopback address')
    authorizations = header_values(headers, "authorization")
    match = _BEARER.fullmatch(authorizations[0]) if len(authorizations) == 1 else None
    if match is None:
        return AuthRefusal(401, BEARER_MISSING)
    given = hashlib.sha256(match.group(1).encode("utf-8", "surrogateescape")).digest()
    if not hmac.compare_digest(given, expected_digest):
        return AuthRefusal(401, BEARER_WRONG)
    return None


def answer_headers(status: int, proof: str | None) -> list[tuple[str, str]]:
    """Headers of every HTTP answer: marker, proof when earned, realm on 401 (docs/cdp-proxy.md, "Wire protocol")."""
    result = [JSON_CONTENT_TYPE, MARKER_HEADER]
    if proof is not None:
        result.append((PROOF_HEADER, proof))
    if status == 401:
        result.append(WWW_AUTHENTICATE)
    return result


def json_body(value: object) -> bytes:
    """2-space indented JSON without a trailing newline (what the reference's answers look like)."""
    return json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8")


def http_answer(status: int, body: object, proof: str | None, *, close: bool = False, head: bool = False) -> bytes:
    """One complete HTTP/1.1 answer with a JSON body (``head``: the headers only, for HEAD)."""
    payload = json_body(body)
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Bad Gateway')}"]
    lines += [f"{name}: {value}" for name, value in answer_headers(status, proof)]
    lines.append(f"Content-Length: {len(payload)}")
    lines.append("Connection: close" if close else "Connection: keep-alive")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (b"" if head else payload)


def ws_refusal(status: int, message: str) -> bytes:
    """A refused upgrade, written raw (no handshake): no proof, no WWW-Authenticate."""
    reason = REASONS.get(status, "Bad Gateway") if status in (400, 401, 403, 404) else "Bad Gateway"
    code = status if status in (400, 401, 403, 404) else 502
    body = message.encode("utf-8")
    head = (
        f"HTTP/1.1 {code} {reason}\r\nX-Pix3-Cdp-Proxy: 1\r\nContent-Type: text/plain\r\n"
        f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body
