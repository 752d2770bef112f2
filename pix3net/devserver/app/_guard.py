"""The `/__pix3` guard: pure checks on request facts (docs/devserver.md, "The guard").

Each check returns None when the request passes, or the refusal to send (status, code, message).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping

from pix3net.devserver.http import Refusal
from pix3net.wire.hostrule import EDITOR_NAME, GAME_NAME, host_allowed, is_loopback_name, split_host

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
    """The Host rule (`pix3net.wire.hostrule`; ``public``: the configured public names), then the peer.
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


# What a browser may ask under the game's name (docs/devserver.md, "The guard"): the game's frame
# (the document of ours holding the game), the page's modules (gameframe.js, the probe, the 2D
# renderer a game may import) and a scene's outline (GET: the demo draws its scene from it; it
# reads a `.pix3scene` file the game can read anyway). The editor page itself is sent to the
# editor's name by its route. Exact paths: a `/__pix3/page/../api/file` names no route here.
_GAME_MAY_ASK = re.compile(re.escape(PREFIX) + r"(?:|/|/index\.html|/game/|/page/[^/]+|/api/scene)")


def is_browser_request(headers: Mapping[str, str]) -> bool:
    """Whether a browser sent the request: it carries `Origin` or a Fetch Metadata field
    (`Sec-Fetch-*`; Chrome sends them on every request, same-origin ones too). pix3's own clients,
    curl and the agents' tools send neither. ``headers``: lower-case names."""
    return "origin" in headers or any(name.startswith("sec-fetch-") for name in headers)


def _game_port(headers: Mapping[str, str]) -> str | None:
    """``:<port>`` (or "") when the request's Host is the game's name, else None."""
    parts = split_host(headers.get("host") or "")
    if parts is None or parts[0] != GAME_NAME:
        return None
    return f":{parts[1]}" if parts[1] is not None else ""


def game_refusal(port: str) -> Refusal:
    """The refusal of a browser's request from the game's origin (``port``: ``:<port>`` or "")."""
    return Refusal(
        403,
        "forbidden_game_origin",
        f"The game's origin (http://{GAME_NAME}{port}) may not use the editor's API or socket; "
        f"the editor page is http://{EDITOR_NAME}{port}{PREFIX}/.",
    )


def check_game(method: str, path: str, headers: Mapping[str, str]) -> Refusal | None:
    """Under the game's name (`pix3net.wire.hostrule.GAME_NAME`) a browser's request may only load the
    game (`_GAME_MAY_ASK`, GET or HEAD): the game's script is same-origin with the dev server there,
    so without this rule it calls the API, the file API and the editor socket as the editor page
    does. A request without browser fields (pix3's clients, curl) passes under either name.
    ``path``: the decoded path (`scope["path"]`); ``headers``: lower-case names."""
    port = _game_port(headers)
    if port is None or not is_browser_request(headers):
        return None
    if method in ("GET", "HEAD") and _GAME_MAY_ASK.fullmatch(path):
        return None
    return game_refusal(port)


def editor_page_redirect(headers: Mapping[str, str], query: str = "") -> str | None:
    """Where a browser asking for the editor page under a loopback name other than the editor's
    (`127.0.0.1`, the game's; `[::1]`, `127.x.y.z`) is sent: the same page under `localhost`, same
    port (and query). None under the editor's name, a public name, or for a non-browser client."""
    parts = split_host(headers.get("host") or "")
    if parts is None or not is_browser_request(headers):
        return None
    name, port = parts
    if name == EDITOR_NAME or not is_loopback_name(name):
        return None
    return (
        f"http://{EDITOR_NAME}"
        + (f":{port}" if port is not None else "")
        + PREFIX
        + "/"
        + (f"?{query}" if query else "")
    )


def header_map(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """ASGI headers → lower-case names; repeated values joined with ", "."""
    result: dict[str, str] = {}
    for name, value in raw:
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        result[key] = f"{result[key]}, {text}" if key in result else text
    return result
