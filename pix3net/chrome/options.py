"""The owner's options: what `pix3 editor` passes to `pix3 __chrome-owner '<json>'` (docs/chrome-owner.md).

Its own module so the parent can build them without importing the owner (trio, the proxy).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OwnerOptions:
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
