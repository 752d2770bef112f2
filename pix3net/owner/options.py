"""The owner's options: what `pix3 editor` passes to `pix3 __chrome-owner '<json>'` (docs/chrome-owner.md).

Its own module so the parent can build them without importing the owner (trio, the proxy). A
NamedTuple, not a dataclass: the owner reads them before it spawns Chrome, and everything it
imports until then is on the way of every cold `pix3 editor` (dataclasses alone is ≈ 4 ms).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple


class OwnerOptions(NamedTuple):
    chrome: str
    port: int
    profile: str
    url: str
    headless: bool = False

    def to_argv(self) -> str:
        """The options JSON, keys in the reference's order (``headless`` only when set)."""
        data: dict[str, Any] = {"chrome": self.chrome, "port": self.port, "profile": self.profile, "url": self.url}
        if self.headless:
            data["headless"] = True
        return json.dumps(data)
