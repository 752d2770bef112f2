"""The one Host rule of both daemons (docs/devserver.md, "The Host rule"; docs/cdp-proxy.md, "Auth").

A web page can make a browser send any name it controls as `Host` and still reach a loopback
port (DNS rebinding: `127.evil.example`, `127.0.0.1.nip.io` resolve to 127.0.0.1). The page is
then same-origin with the server it reaches, so the name is all that tells the two apart. Only
names that cannot belong to a page are accepted: `localhost`, a loopback IP literal written the
one way an address bar writes it, and the public names the user configured. Pure; the CDP proxy
(`wire/auth.py`) and the dev server (its front door and its guard) both call `host_allowed`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from urllib.parse import urlsplit, urlunsplit

# Loopback names that are not dotted quads. `127.x.y.z` is loopback too, but only as the dotted
# quad of decimal octets a browser itself writes (`_LOOPBACK_V4`): `127.1`, `0x7f.0.0.1`,
# `2130706433` and leading zeros name the same address yet are never how a browser sends it.
LOOPBACK = frozenset({"localhost", "[::1]"})

_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_LOOPBACK_V4 = re.compile(rf"127\.{_OCTET}\.{_OCTET}\.{_OCTET}")
# A name (anything without brackets, colons, commas or whitespace) or a bracketed IPv6 literal,
# then an optional port of 1–5 digits (RFC 9110 §7.2: uri-host [ ":" port ]).
_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[^\[\]:,\s]+)(?::([0-9]{1,5}))?")


def split_host(value: str) -> tuple[str, int | None] | None:
    """(lower-cased name, port or None) of one Host value; ``[v6]`` keeps its brackets. None when
    the value is not `name[:port]` (also an empty port, `localhost:`)."""
    match = _HOST.fullmatch(value.strip(" \t").lower())
    if match is None:
        return None
    port = match.group(2)
    return match.group(1), int(port) if port is not None else None


def is_loopback_name(name: str) -> bool:
    """`localhost`, `[::1]` or a canonical `127.x.y.z` (lower-cased, no port)."""
    return name in LOOPBACK or _LOOPBACK_V4.fullmatch(name) is not None


# The editor's pair of loopback names (docs/game-page.md, section 4): the editor page is served
# under EDITOR_NAME (what `pix3 editor` opens, dev.json's `editorUrl`) and runs the game under
# GAME_NAME: two sites, so Chrome gives the game a renderer process of its own. Fixed, so that the
# dev server tells from a request's Host alone that a browser asks from the game's origin, which
# may not use the editor's API (docs/devserver.md, "The guard").
EDITOR_NAME = "localhost"
GAME_NAME = "127.0.0.1"


def other_loopback_name(name: str) -> str | None:
    """The loopback name of the other site (docs/game-page.md, section 4): the editor page under
    one runs the game under the other, so that Chrome gives the game a process of its own.
    `localhost` ⇄ `127.0.0.1` (EDITOR_NAME ⇄ GAME_NAME; any other loopback literal → `localhost`,
    where a browser's editor page is sent); None for a public name."""
    if name == EDITOR_NAME:
        return GAME_NAME
    return EDITOR_NAME if is_loopback_name(name) else None


def game_page_url(url: str) -> str:
    """``url`` (a dev server's base URL) under the game's name when it is under the editor page's:
    a game that `pix3 smoke` runs is a browser under the game's name, so the dev server refuses it
    the editor's API there as it does the game frame's. Any other URL is returned as it is."""
    parts = urlsplit(url)
    if parts.hostname != EDITOR_NAME:
        return url
    netloc = GAME_NAME if parts.port is None else f"{GAME_NAME}:{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


def host_allowed(values: Sequence[str], public: Collection[str] = ()) -> bool:
    """Whether a request whose `Host` field lines are ``values`` may be served: exactly one
    line (a duplicated Host is how a second name would be smuggled past a check of the first),
    naming a loopback name or one of the ``public`` names (lower-cased), with any port."""
    if len(values) != 1:
        return False
    parts = split_host(values[0])
    if parts is None:
        return False
    name = parts[0]
    return is_loopback_name(name) or name in public


def public_names(url: str | None) -> frozenset[str]:
    """The name a configured public URL (`PIX3_PUBLIC_URL`) gives the browser, lower-cased and
    bracketed for IPv6; nothing for an empty value or one that is not an http(s) URL."""
    if not url:
        return frozenset()
    try:
        parts = urlsplit(url.strip())
        name = parts.hostname
    except ValueError:
        return frozenset()
    if parts.scheme not in ("http", "https") or not name:
        return frozenset()
    return frozenset({f"[{name}]" if ":" in name else name})
