"""W_UNUSED_ASSET (docs/validate.md, "Project rules"): files under sprites/ or audio/ nothing references."""

from __future__ import annotations

from pix3tools.project import read_text
from pix3tools.validate._context import ValidateProject
from pix3tools.validate._report import Diagnostic

__all__ = ["REFERENCING_EXTENSIONS", "unused_assets"]

REFERENCING_EXTENSIONS = (
    ".pix3scene", ".ts", ".js", ".json", ".pix3anim", ".atlas", ".yaml", ".yml", ".html", ".css",
)  # fmt: skip


def unused_assets(project: ValidateProject, references: set[str]) -> list[Diagnostic]:
    candidates = [
        rel
        for rel in project.files.files
        if rel.startswith(("sprites/", "audio/"))
        and not rel.rsplit("/", 1)[-1].startswith(".")
        and not rel.endswith(REFERENCING_EXTENSIONS)
        and rel not in references
    ]
    if not candidates:
        return []
    texts: dict[str, str] = {}
    for rel in project.files.files:
        if rel.endswith(REFERENCING_EXTENSIONS):
            text = read_text(project.root / rel)
            if text is not None:
                texts[rel] = text
    out: list[Diagnostic] = []
    for asset in candidates:
        folder, _, base = asset.rpartition("/")
        if any(asset in text for other, text in texts.items() if other != asset):
            continue
        if any(base in text for other, text in texts.items() if other.rpartition("/")[0] == folder and other != asset):
            continue
        out.append(
            Diagnostic(
                "W_UNUSED_ASSET",
                asset,
                f"{asset} is not referenced by any scene, script or resource file.",
                fix="use it, or delete it to keep exports small",
            )
        )
    return out
