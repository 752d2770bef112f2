"""How both daemons' accept loops outlive running out of descriptors or memory.

``accept(2)`` failing with EMFILE and its kin means "no resources right now", not "the listener
is broken": the loop waits (50 ms, doubling to 1 s) and tries again, and the daemon keeps serving
the connections it has (docs/devserver.md, "Limits"). Each daemon says so in its own words, once
per episode. Trio only; the CDP proxy's listener and the dev server's front door use it.
"""

from __future__ import annotations

# Loaded here, before any descriptor runs out: every connect or name lookup with a `str` host
# encodes it with the `idna` codec, which Python imports on first use. Imported first while the
# process is out of descriptors, by many threads at once (the front door's), the import failed and
# Python's codec registry remembered the miss: every later hand-off to Hypercorn raised
# `LookupError: unknown encoding: idna` and the dev server never recovered.
import encodings.idna  # noqa: F401
import errno

import trio

# accept(2) errors that mean "no resources right now".
CAPACITY_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
FIRST_SECONDS = 0.05
MOST_SECONDS = 1.0  # a freed descriptor is noticed within a second


class AcceptBackoff:
    """One accept loop's backoff: :meth:`failed` after an error, :meth:`accepted` after a success."""

    def __init__(self) -> None:
        self.seconds = 0.0  # the current wait; 0 when the last accept succeeded

    async def failed(self, error: OSError) -> bool:
        """Re-raise ``error`` unless it is a capacity error; else wait. True on the first failure
        of an episode (the moment to log)."""
        if error.errno not in CAPACITY_ERRNOS:
            raise error
        first = not self.seconds
        self.seconds = min(self.seconds * 2, MOST_SECONDS) if self.seconds else FIRST_SECONDS
        await trio.sleep(self.seconds)
        return first

    def accepted(self) -> bool:
        """True when this success ends an episode of failures."""
        ended = bool(self.seconds)
        self.seconds = 0.0
        return ended
