"""The `/__pix3` guard: pure checks on request facts (docs/devserver.md, "The guard").

Each check returns None when the request passes, or the refusal to send (status, code, message).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal
from urllib.parse import unquote_to_bytes

from pix3net.devserver.errors import Refusal

_HOST_RE = re.compile(r"^(\[[0-9a-f:.]*\]|[^\[\]:]+)(?::(\d{1,5}))?$")
_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})
BASE = "/"
PREFIX = BASE + "__pix3"
_PREFIX_BYTES = PREFIX.encode()

Route = Literal["private", "pix3", "other"]


NOT_FOUND = Refusal(404, "not_found", "Not found.")
FORBIDDEN_HOST = Refusal(403, "forbidden_host", "Forbidden host.")
FORBIDDEN_REMOTE = Refusal(
    403,
    "forbidden_remote",
    "The Pix3 editor only answers this machine. Pass pix3({ allowRemote: true }) to serve it to other hosts.",
)
MISSING_X_PIX3 = Refusal(403, "missing_x_pix3", "Mutations need the header `X-Pix3: 1`.")
FORBIDDEN_ORIGIN = Refusal(403, "forbidden_origin", "Origin not allowed.")


def route_of(raw_path: bytes) -> Route:
    """Where a request goes, from its raw path (no query), percent-decoded once.

    ``private``: a ``.pix3`` segment, case-insensitive (`/.pix3/…`, `/%2epix3/…`, `/@fs/…/.pix3/…`):
    404 for every such URL, ours or Vite's. Stricter than the reference, which skips the check
    when the decoded bytes are not UTF-8: a ``.pix3`` segment is one whatever the rest holds.
    ``pix3``: `/__pix3` or below it (the Quart app). ``other``: Vite or the project folder.
    """
    path = unquote_to_bytes(raw_path) if b"%" in raw_path else raw_path
    lowered = path.lower()
    if b"pix3" not in lowered:
        return "other"
    if b".pix3" in lowered.split(b"/"):
        return "private"
    if path == _PREFIX_BYTES or path.startswith(_PREFIX_BYTES + b"/"):
        return "pix3"
    return "other"


def parse_host(value: str | None) -> str | None:
    """Lower-cased host name without the port; ``[v6]`` keeps its brackets; malformed → None."""
    if value is None:
        return None
    text = value.strip().lower()
    match = _HOST_RE.match(text)
    if match is None:
        return None
    return match.group(1)


def host_allowed(value: str | None, allowed_hosts: bool | Iterable[str] = ()) -> bool:
    name = parse_host(value)
    if name is None:
        return False
    if name in _LOOPBACK_HOSTS or name.startswith("127."):
        return True
    if allowed_hosts is True:
        return True
    if allowed_hosts is False:
        return False
    for entry in allowed_hosts:
        entry = entry.lower()
        if entry.startswith("."):
            if name == entry[1:] or name.endswith(entry):
                return True
        elif name == entry:
            return True
    return False


def is_loopback_peer(address: str | None) -> bool:
    if not address:
        return False
    return address == "::1" or address.startswith("127.") or address.startswith("::ffff:127.")


def same_origin(origin: str | None, host: str | None) -> bool:
    """Absent Origin (CLI, non-browser) passes; else it must be http(s)://<Host>."""
    if origin is None:
        return True
    wanted = (host or "").strip().lower()
    got = origin.strip().lower()
    return got in (f"http://{wanted}", f"https://{wanted}")


def check_peer(host: str | None, peer: str | None, allowed_hosts: bool | Iterable[str] = ()) -> Refusal | None:
    if not host_allowed(host, allowed_hosts):
        return FORBIDDEN_HOST
    if not is_loopback_peer(peer):
        return FORBIDDEN_REMOTE
    return None


def check_mutation(x_pix3: str | None, origin: str | None, host: str | None) -> Refusal | None:
    if x_pix3 != "1":
        return MISSING_X_PIX3
    if not same_origin(origin, host):
        return FORBIDDEN_ORIGIN
    return None


def check_request(
    method: str,
    headers: dict[str, str],
    peer: str | None,
    allowed_hosts: bool | Iterable[str] = (),
) -> Refusal | None:
    """Every `/__pix3` HTTP request: peer first, then (non-GET/HEAD) the mutation rules.

    ``headers`` has lower-case names, repeated values joined with ", ".
    """
    refusal = check_peer(headers.get("host"), peer, allowed_hosts)
    if refusal is None and method not in ("GET", "HEAD"):
        refusal = check_mutation(headers.get("x-pix3"), headers.get("origin"), headers.get("host"))
    return refusal


def check_socket(headers: dict[str, str], peer: str | None, allowed_hosts: bool | Iterable[str] = ()) -> Refusal | None:
    """The editor socket's upgrade: Host, peer, same origin (no X-Pix3, no token)."""
    refusal = check_peer(headers.get("host"), peer, allowed_hosts)
    if refusal is None and not same_origin(headers.get("origin"), headers.get("host")):
        refusal = FORBIDDEN_ORIGIN
    return refusal


def header_map(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """ASGI headers → lower-case names; repeated values joined with ", "."""
    result: dict[str, str] = {}
    for name, value in raw:
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        result[key] = f"{result[key]}, {text}" if key in result else text
    return result
