"""A project folder on disk: the manifest and the files a test gives."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def make_project(root: Path, files: Mapping[str, str] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pix3project.yaml").write_text("name: demo\n")
    for name, text in (files or {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
