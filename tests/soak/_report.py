"""What a soak module reports: figures, each with the bound it must keep (or none)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    """One line of `just soak`: a measured value, and whether it kept its promise.

    ``bound`` is the largest acceptable value (None: the figure is only reported).
    """

    area: str
    name: str
    value: float
    unit: str = ""
    bound: float | None = None
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.bound is None or self.value <= self.bound
