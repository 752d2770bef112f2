"""JavaScript number semantics the port must match bit for bit (docs/sfx.md, "Rendering")."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import numpy.typing as npt

MASK32 = 0xFFFFFFFF
_MULBERRY_STEP = 0x6D2B79F5


def js_round(x: float) -> int:
    """``Math.round``: halves go toward +∞ (Python's round() is half-to-even)."""
    floor = math.floor(x)
    return floor + 1 if x - floor >= 0.5 else floor


def to_fixed_number(x: float, digits: int) -> float:
    """``Number(x.toFixed(digits))``: the exact binary value rounded, ties away from zero."""
    return float(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def _imul(a: int, b: int) -> int:
    return (a * b) & MASK32


class Mulberry32:
    """The seeded PRNG, in 32-bit integer arithmetic (masked after every add and multiply)."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK32

    def __call__(self) -> float:
        self.state = (self.state + _MULBERRY_STEP) & MASK32
        t = self.state
        t = _imul(t ^ (t >> 15), t | 1)
        t ^= (t + _imul(t ^ (t >> 7), t | 61)) & MASK32
        return ((t ^ (t >> 14)) & MASK32) / 4294967296


def mulberry32_block(seed: int, count: int) -> npt.NDArray[np.float64]:
    """The first ``count`` draws of ``Mulberry32(seed)`` at once.

    The state after k draws is ``seed + k·step`` mod 2³², so every draw is independent of the
    others and numpy computes them together (uint32 arrays wrap like ``Math.imul``).
    """
    k = np.arange(1, count + 1, dtype=np.uint64)
    state = ((np.uint64(seed & MASK32) + k * np.uint64(_MULBERRY_STEP)) & np.uint64(MASK32)).astype(np.uint32)
    t = state
    t = (t ^ (t >> np.uint32(15))) * (t | np.uint32(1))
    t = t ^ (t + (t ^ (t >> np.uint32(7))) * (t | np.uint32(61)))
    out: npt.NDArray[np.float64] = (t ^ (t >> np.uint32(14))).astype(np.float64) / 4294967296.0
    return out
