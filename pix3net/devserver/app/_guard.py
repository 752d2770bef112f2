"""The `/__pix3` guard: pure checks on request facts (docs/devserver.md, "The guard").

Each check returns None when the request passes, or the refusal to send (status, code, message).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from pix3net.devserver.http import Refusal
from pix3net.hosts import host_allowed

BASE = "/"
PREFIX = BASE + "__pix3"


FORBIDDEN_HOST = Refusal(403, "forbidden_host", "Forbidden host.")
FORBIDDEN_REMOTE = Refusal(
    403,
    "forbidden_remote",
    "The Pix3 editor only answers this machine. Pass pix3({ allowRemote: true }) to serve it to other hosts.",
)
MISSING_X_PIX3 = Refusal(403, "missing_x_pix3", "Mutations need the header `X-Pix3: 1`.")
FORBIDDEN_ORIGIN = Refusal(403, "forbidden_origin", "Origin not allowed.")


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


def check_peer(host: str | None, peer: str | None, public: Collection[str] = ()) -> Refusal | None:
    """The Host rule (`pix3net.hosts`; ``public``: the configured public names), then the peer.
    ``host`` is the header as `header_map` joins it: a duplicated Host holds a comma, which no
    accepted value does, so it is refused as the rule says."""
    if not host_allowed([host] if host is not None else [], public):
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
    public: Collection[str] = (),
) -> Refusal | None:
    """Every `/__pix3` HTTP request: peer first, then (non-GET/HEAD) the mutation rules.

    ``headers`` has lower-case names, repeated values joined with ", ".
    """
    refusal = check_peer(headers.get("host"), peer, public)
    if refusal is None and method not in ("GET", "HEAD"):
        refusal = check_mutation(headers.get("x-pix3"), headers.get("origin"), headers.get("host"))
    return refusal


def check_socket(headers: dict[str, str], peer: str | None, public: Collection[str] = ()) -> Refusal | None:
    """The editor socket's upgrade: Host, peer, same origin (no X-Pix3, no token)."""
    refusal = check_peer(headers.get("host"), peer, public)
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
