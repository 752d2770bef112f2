"""Which request targets the front door lets through to Vite or the project folder (docs/devserver.md,
"What the front door refuses", whose numbering this follows). Pure: bytes in, a verdict out; the
one question that needs the disk is asked through the ``outside`` callback the caller passes.

`route_of` first: a `.pix3` segment is private (404 for every Host, ours or Vite's), `/__pix3` and
below is the app's, the rest Vite's or the folder's. Then, for the rest, so that a project pinned
to an old Vite gets none of Vite's known `server.fs` bypasses through our port:

1. the deny list: a segment named `.pix3`, `.env`, `.env.*`, `*.crt`, `*.pem` or `.git`, in lower
   case, with trailing dots and spaces and an NTFS stream suffix (`:…`) dropped, or a name shaped
   like a DOS short alias (`ENV~1`, `GIT~1.X`), at every stage of percent-decoding;
2. the normaliser: origin-form; no raw `#` or `\\`; once decoded no NUL, `#`, `?` or `\\` in the
   path, and no piece made only of dots (`.`, `..`, the `/.`-suffix of `/.env/.`) anywhere in the
   target, its query included: Vite normalises a module id's dot segments query and all, so
   `/@fs/<root>/?/../../x` is a path above the root to it;
3. `/@id/` unwrapped, `/@fs/<path>` only under the serving roots;
4. whatever the query, a path Vite would read as an absolute path outside the project (the
   project has no file of that name, the host has one): Vite answers such a path from disk under
   more queries and headers than any list keeps up with (`?import` on an SVG, `Sec-Fetch-Dest`);
5. the same judgement for the module ids of a `vite:invoke` message on the HMR socket, and any
   client message on that socket the door cannot read whole is refused;
6. a navigation into the project's pages asked for by a page of another site (`foreign_navigation`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Literal
from urllib.parse import unquote_to_bytes

Route = Literal["private", "pix3", "other"]

PREFIX = b"/__pix3"  # the app's own routes (docs/devserver.md, "The /__pix3 routes")
PRIVATE = b".pix3"  # the project's own folder of state: never served, whatever the Host
MAX_DECODES = 3  # percent-decoding rounds; a path still encoded after them is refused
# A `vite:invoke` call's arguments are an id, an importer and a few options: far below these.
MAX_INVOKE_STRINGS = 64
MAX_INVOKE_DEPTH = 8
# A client's HMR message is a small JSON object (Vite's client sends `ping`, `vite:invalidate` and
# a game's `import.meta.hot.send` payloads); larger is not judged, so not passed on.
MAX_CLIENT_MESSAGE_BYTES = 1024 * 1024

# A target `_SUSPECT` does not find in lower case is one the rules below let through and
# `route_of` calls "other", unless its path's first name (`_FIRST_NAME`) is a top folder of the
# host and the path a file outside the project (`unsuspected_name`; properties
# tests/unit/test_devserver_targets.py checks). The splice's common case needs one `lower()`, this
# search and one match: case-sensitive over the lowered bytes and without `.*`, the search is
# linear and about twice as fast as a case-insensitive one (measured).
_SUSPECT = re.compile(rb"[%#\\~]|pix3|/@(?:fs|id)(?:/|$)|/\.(?:\.|/|\?|$|env|git)|\?\.+(?:[/?]|$)|\.(?:pem|crt)")
_FIRST_NAME = re.compile(rb"/*([^/?]*)")
# A piece of a target (between `/` and `?`) made only of dots: a dot segment once Vite normalises.
_DOT_PIECE = re.compile(rb"(?:^|[/?])\.+(?=[/?]|$)")
# A DOS short alias (8.3 name): Windows (and vfat, NTFS mounts) open `ENV~1` as `.env`.
_SHORT_ALIAS = re.compile(rb"~[0-9]+(?:\.[^.]*)?$")
_SLASHES = re.compile(rb"/+")


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
    if PRIVATE in lowered.split(b"/"):
        return "private"
    if path == PREFIX or path.startswith(PREFIX + b"/"):
        return "pix3"
    return "other"


# What a browser says of a navigation (Fetch Metadata): a navigation's `Sec-Fetch-Mode`, and the
# `Sec-Fetch-Site` values of one the user or a page of the same origin asked for.
NAVIGATE = "navigate"
OWN_SITES = frozenset({"same-origin", "none"})


def foreign_navigation(mode: str | None, site: str | None) -> bool:
    """Whether a request for a project page (route "other") is a navigation a page of another
    origin asked for (a frame, a popup, a frame navigated from outside): refused. Both loopback
    names serve the project, and the editor page runs the game under the other one
    (docs/game-page.md, section 4): a game that loaded one of its own pages under the editor
    page's name, framed inside itself, in a popup or in place of the frame holding it, would run
    its code on the editor page's origin. The user's own navigations (address bar, bookmark:
    `none`) and the game's within its origin (`same-origin`) pass; a request without these fields
    (not a browser's) passes."""
    if mode is None or mode.strip().lower() != NAVIGATE:
        return False
    return site is None or site.strip().lower() not in OWN_SITES


def unsuspected_name(target: bytes) -> bytes | None:
    """None when `_SUSPECT` finds something in ``target``, else the first name of its path in
    lower case, leading slashes skipped (`//ETC/x` → `etc`). A target with a name that is no top
    folder of the host passes `refusal` (origin-form assumed; `door.Door.plain` asks the host)."""
    lowered = target.lower()
    if _SUSPECT.search(lowered) is not None:
        return None
    found = _FIRST_NAME.match(lowered)
    return found.group(1) if found is not None else b""


def denied_name(segment: bytes) -> bool:
    """Whether one path segment (decoded) is on the deny list."""
    name = segment.split(b":", 1)[0].rstrip(b". ").lower()
    return (
        name in (PRIVATE, b".env", b".git")
        or name.startswith(b".env.")
        or name.endswith((b".crt", b".pem"))
        or _SHORT_ALIAS.search(name) is not None
    )


def decodings(raw_path: bytes) -> list[bytes] | None:
    """The path as sent, then each percent-decoding of it until nothing changes (Vite decodes once,
    a file system none, so every stage is judged); None when it still changes after MAX_DECODES
    rounds (`%25` nested deeper than any real name)."""
    stages = [raw_path]
    for _ in range(MAX_DECODES):
        if b"%" not in stages[-1]:
            return stages
        decoded = unquote_to_bytes(stages[-1])
        if decoded == stages[-1]:
            return stages
        stages.append(decoded)
    return stages if unquote_to_bytes(stages[-1]) == stages[-1] else None


def refusal(target: bytes, roots: Sequence[str], outside: Callable[[str], bool]) -> str | None:
    """Why ``target`` must not reach Vite or the project folder (404 ``not_found``), or None.

    ``roots``: absolute folders `/@fs/` may name (no trailing slash). ``outside(path)``: whether
    Vite, handed the absolute ``path``, would read a file outside the project (it exists there
    and the project has no file of that name), whatever the query.
    """
    if not target.startswith(b"/"):
        return "not an origin-form target"
    if b"#" in target or b"\\" in target:
        return "a raw # or \\ in the target"
    return _path_refusal(target, roots, outside)


def _path_refusal(target: bytes, roots: Sequence[str], outside: Callable[[str], bool]) -> str | None:
    raw_path, _, query = target.partition(b"?")
    stages = decodings(raw_path)
    if stages is None:
        return "percent-encoded too deep"
    # Vite decodes the whole target once, then normalises a module id's dot segments across its
    # `?`: a dot piece in the query, raw or decoded, is one in the path.
    if _DOT_PIECE.search(target) or (b"%" in query and _DOT_PIECE.search(b"?" + unquote_to_bytes(query))):
        return "a dot segment"
    for stage in stages:
        if any(c in stage for c in (b"\0", b"\\", b"#", b"?")):
            return "NUL, \\, # or ? in the decoded path"
        for segment in stage.split(b"/"):
            if segment and not segment.strip(b"."):
                return "a dot segment"
            if denied_name(segment):
                return "a denied name"
    path = _SLASHES.sub(b"/", stages[-1])
    while path.startswith(b"/@id/"):  # Vite unwraps ids it could not write as URLs
        path = _SLASHES.sub(b"/", b"/" + path[len(b"/@id/") :])
    if path.startswith(b"/@fs/"):
        if not under(path[len(b"/@fs") :].decode("utf-8", "surrogateescape"), roots):
            return "/@fs/ outside the serving roots"
        return None
    if outside(path.decode("utf-8", "surrogateescape")):
        return "a file outside the project"
    return None


def under(path: str, roots: Sequence[str]) -> bool:
    """Whether the absolute ``path`` is one of ``roots`` or below one (compared as strings)."""
    return any(path == root or path.startswith(root + "/") for root in roots)


def invoke_refusal(message: str | bytes, roots: Sequence[str], outside: Callable[[str], bool]) -> str | None:
    """Why a client's message on Vite's HMR socket must not reach Vite, or None.

    Vite answers a `{"type": "custom", "event": "vite:invoke", "data": {…}}` message by running
    the named server function (`fetchModule`) on its arguments, without its HTTP checks
    (CVE-2026-39363: `file:///etc/passwd?raw`). Every string in ``data`` is judged as a module id
    would be over HTTP. The event name is compared once decoded (`vite\\u003ainvoke` is the same
    name to Node). A message the door cannot read whole (over MAX_CLIENT_MESSAGE_BYTES, not UTF-8,
    not JSON, nested past what Python's parser takes while Node's takes more) is refused whatever
    it names: the two parsers must never disagree on a message that is passed on.
    """
    try:
        size = len(message) if isinstance(message, bytes) else len(message.encode("utf-8"))
        if size > MAX_CLIENT_MESSAGE_BYTES:
            return "a message too large to judge"
        text = message.decode("utf-8") if isinstance(message, bytes) else message
        parsed = json.loads(text)
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return "a message the door cannot read"
    if not isinstance(parsed, dict) or parsed.get("event") != "vite:invoke":
        return None
    strings = _strings(parsed.get("data"))
    if strings is None:
        return "a vite:invoke call too large or too deep to judge"
    for value in strings:
        reason = _id_refusal(value, roots, outside)
        if reason is not None:
            return reason
    return None


def _strings(data: object) -> list[str] | None:
    """Every string in ``data`` (values of objects, items of arrays); None past MAX_INVOKE_STRINGS
    strings or MAX_INVOKE_DEPTH levels."""
    found: list[str] = []
    stack: list[tuple[object, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            found.append(value)
            if len(found) > MAX_INVOKE_STRINGS:
                return None
        elif isinstance(value, dict | list):
            if depth >= MAX_INVOKE_DEPTH:
                return None
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)
    return found


def _id_refusal(module_id: str, roots: Sequence[str], outside: Callable[[str], bool]) -> str | None:
    raw = module_id.encode("utf-8", "surrogateescape")
    if raw[:5].lower() == b"file:":  # a file URL names an absolute path: judged as `/@fs/` is
        rest = raw[5:]
        if rest.startswith(b"//"):
            rest = rest[2:]
            if rest[:9].lower() == b"localhost":
                rest = rest[9:]
        raw = b"/@fs" + (rest if rest.startswith(b"/") else b"/" + rest)
    elif not raw.startswith(b"/"):
        raw = b"/" + raw
    if b"#" in raw or b"\\" in raw:
        return "a # or \\ in an invoked id"
    return _path_refusal(raw, roots, outside)
