"""The splice's decisions, sans-IO: what to do with a request head, and what to do when Vite fails.

:mod:`pix3net.devserver.front.splice` is the thin loop that reads, writes and opens sockets; it
asks this module at two points, with bytes and facts in and a verdict out:

- :func:`on_head`: a complete head (and the Vite port, None while Vite is down) → :class:`Relay`
  (splice the request to Vite: how many bytes it is, whether the connection ends after it) or
  :data:`HAND_OFF` (the rest of the connection goes to Hypercorn, which answers it, a refusal
  included: the splice never refuses anything itself);
- :func:`after_vite_failed`: Vite closed or reset the connection during an exchange →
  :data:`RETRY` on a fresh connection, :data:`ANSWER_502`, or :data:`CLOSE` (part of the answer
  already reached the client: nothing more can be said), by `vitelink`'s rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from pix3net.devserver.front import targets
from pix3net.devserver.front.door import Door
from pix3net.devserver.front.vitelink import may_retry
from pix3net.wire.httphead import common_request, host_field, parse_request, path_of

__all__ = [
    "ANSWER_502",
    "CLOSE",
    "HAND_OFF",
    "RETRY",
    "AfterFailure",
    "HandOff",
    "Relay",
    "after_vite_failed",
    "on_head",
]


@dataclass(frozen=True, slots=True)
class Relay:
    """Splice the request to Vite: its first ``size`` bytes (head and body) are the request;
    ``close``: the client asked to close after the answer."""

    method: bytes
    size: int
    close: bool


class HandOff:
    """Hand the connection, bytes already read included, to the internal Hypercorn listener."""

    def __repr__(self) -> str:
        return "HAND_OFF"


HAND_OFF = HandOff()


class AfterFailure(Enum):
    """What the splice does once Vite failed on its side of an exchange."""

    RETRY = "send the request once more on a fresh connection"
    ANSWER_502 = "answer 502 (Vite closed the connection) and close"
    CLOSE = "close the client's connection (part of the answer reached it)"


RETRY = AfterFailure.RETRY
ANSWER_502 = AfterFailure.ANSWER_502
CLOSE = AfterFailure.CLOSE

_NAVIGATION = b"\r\nsec-fetch-mode: navigate"  # as browsers write the field (lowered)
_SITE = re.compile(rb"\r\nsec-fetch-site:[ \t]*([^\r\n]*?)[ \t]*(?=\r\n)")


def on_head(door: Door, buf: bytes, end: int, port: int | None) -> Relay | HandOff:
    """What to do with the request whose head ends at ``end`` in ``buf`` (-2: the head outgrew
    the parser's bound; Hypercorn refuses it). Only plain framing, one `Host` the Host rule
    accepts, a target the front door lets through and no upgrade is spliced, and only while Vite
    has a port."""
    if end > 0 and port is not None:
        common = common_request(buf, end)  # the common case: a GET without a body, read cheaply
        if common is not None and _for_vite(door, buf, end, common[1]):
            return Relay(common[0], end, False)
        head = parse_request(buf, end)
        if head is not None and not head.upgrade and _for_vite(door, buf, end, head.target):
            return Relay(head.method, end + (head.length or 0), head.close)
    return HAND_OFF


def after_vite_failed(method: bytes, reused: bool, answered: bool, heard: bool, retried: bool) -> AfterFailure:
    """Vite failed during an exchange: ``reused``, on a kept-alive connection; ``answered``, part
    of its answer had reached the client; ``heard``, a byte of it had come back; ``retried``, this
    was already the second try. A request is sent at most twice (`vitelink.may_retry`)."""
    if answered:
        return CLOSE
    if retried or not may_retry(method, reused, heard):
        return ANSWER_502
    return RETRY


def _own_navigation(lowered: bytes) -> bool:
    """Whether a navigation passes `targets.foreign_navigation` (the user's own, `none`, or its
    own origin's, `same-origin`), read from one `Sec-Fetch-Site` field: then it is spliced. Any
    other goes to the dispatcher to be judged — and with it the rest of its connection, which a
    browser reuses for the page's module fetches (a page load handed off whole took 15 % longer to
    import 300 modules). Two such fields, or none, are the dispatcher's to read."""
    sites = _SITE.findall(lowered)
    return len(sites) == 1 and not targets.foreign_navigation(targets.NAVIGATE, sites[0].decode("latin-1"))


def _for_vite(door: Door, head: bytes, end: int, target: bytes) -> bool:
    """Whether a request may be spliced to Vite: one `Host` the Host rule accepts (its verdict
    remembered per value), an origin-form target that `targets.route_of` calls "other" and the
    door lets through; both asked only when the target is not `Door.plain`. A navigation another
    origin asked for is not spliced: the dispatcher judges it (`targets.foreign_navigation`)."""
    if target[:1] != b"/" or not door.host_field_ok(host_field(head, end)):
        return False
    lowered = head[:end].lower()
    if _NAVIGATION in lowered and not _own_navigation(lowered):
        return False
    if door.plain(target):
        return True
    path = path_of(target)
    return path is not None and targets.route_of(path) == "other" and door.target_refusal(target) is None
