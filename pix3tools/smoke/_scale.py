"""How `pix3 smoke` spreads its scenes: over the workers of one machine and over the jobs of a CI
matrix (docs/smoke.md, "Workers and shards").

Pure. ``--shard i/n`` keeps the scenes whose place in the *sorted* selection is ``i - 1`` modulo
``n``: each job of a matrix computes the same split from the same selection on any machine (it
depends on the scene paths alone, not on the order they were found in, the locale or the clock),
the shards are disjoint and together hold every scene once, and their sizes differ by at most
one. A hash of each path would keep a scene in its shard when others are added, but a CI run
shards one commit at a time, and a hash leaves small selections unbalanced (4 scenes over 4 jobs
land two in one job more often than not).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# One worker is one browser context with its own renderer process running a game page: a WebGL
# page on SwiftShader measured 150–250 MiB resident here; twice that leaves room for a heavy scene.
WORKER_BYTES = 512 * 1024 * 1024
# Each scene's renderer (its game, its frames) keeps about one core busy while it runs; one
# worker more than the cores keeps them busy while another worker waits on Chrome or the dev server.
EXTRA_WORKERS = 1
MAX_DEFAULT_WORKERS = 16  # beyond this, one Chrome's browser process becomes the bottleneck
_SHARD = re.compile(r"^\s*([0-9]+)\s*/\s*([0-9]+)\s*$")


class Shard:
    """``index`` of ``total`` (1-based, as a CI matrix counts)."""

    __slots__ = ("index", "total")

    def __init__(self, index: int, total: int) -> None:
        if not 1 <= index <= total:
            raise ValueError(f"shard {index}/{total} is not one of 1..{total}")
        self.index = index
        self.total = total

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Shard) and (self.index, self.total) == (other.index, other.total)

    def __hash__(self) -> int:
        return hash((self.index, self.total))

    def __repr__(self) -> str:
        return f"Shard({self.index}, {self.total})"

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"


def parse_shard(text: str) -> Shard | None:
    """``"2/4"`` → ``Shard(2, 4)``; None unless both are whole numbers with 1 ≤ i ≤ n."""
    match = _SHARD.match(text)
    if match is None:
        return None
    index, total = int(match.group(1)), int(match.group(2))
    return Shard(index, total) if 1 <= index <= total else None


def shard_scenes(scenes: Sequence[str], shard: Shard) -> list[str]:
    """The scenes of ``shard``, in the order ``scenes`` gives them (the report's order)."""
    ordered = sorted(set(scenes))
    mine = {scene for place, scene in enumerate(ordered) if place % shard.total == shard.index - 1}
    return [scene for scene in dict.fromkeys(scenes) if scene in mine]


def default_workers(cores: int, available_bytes: int | None) -> int:
    """Workers when ``--workers`` is not given: one per core plus one, fewer when the memory
    available holds fewer browser contexts (``WORKER_BYTES`` each), at least 1, at most 16."""
    workers = max(1, cores) + EXTRA_WORKERS
    if available_bytes is not None:
        workers = min(workers, available_bytes // WORKER_BYTES)
    return max(1, min(workers, MAX_DEFAULT_WORKERS))
