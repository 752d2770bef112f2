"""``.pix3anim`` flipbooks (docs/validate.md, "Project rules"): JSON shape and every image they name."""

from __future__ import annotations

import json

from pix3tools.project import project_path, read_text
from pix3tools.scene import Document, PathSeg, YamlError, parse_yaml
from pix3tools.validate._context import ValidateProject
from pix3tools.validate._report import Diagnostic
from pix3tools.validate._values import describe

__all__ = ["check_anims", "json_doc"]

ANIM_SUFFIX = ".pix3anim"


def json_doc(text: str) -> Document | None:
    """JSON text as a Document for line lookups (JSON is YAML 1.2); None if it will not parse."""
    try:
        return parse_yaml(text)
    except (YamlError, RecursionError):
        return None


def check_anims(project: ValidateProject, references: set[str], whole: bool) -> list[Diagnostic]:
    chosen = {r for r in references if r.endswith(ANIM_SUFFIX) and project.files.exists(r)}
    if whole:
        chosen |= set(project.files.with_suffix(ANIM_SUFFIX))
    out: list[Diagnostic] = []
    for rel in sorted(chosen):
        out.extend(_check_one(project, rel))
    return out


def _check_one(project: ValidateProject, rel: str) -> list[Diagnostic]:
    text = read_text(project.root / rel)
    if text is None:
        return []
    out: list[Diagnostic] = []
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else "parse error"
        return [
            Diagnostic(
                "E_ANIM_JSON",
                rel,
                f"{rel} is not valid JSON ({message}): the AnimatedSprite2D that plays it draws nothing.",
                fix="a .pix3anim is JSON — see pix3anim.md in the pix3-scene-format skill",
            )
        ]
    doc = json_doc(text)
    if not isinstance(data, dict):
        return [
            Diagnostic(
                "E_ANIM_JSON",
                rel,
                f'{rel} must be a JSON object ({{ "version", "texturePath", "clips" }}), got {describe(data, json=True)}.',
                path=(),
                doc=doc,
            )
        ]
    clips = data.get("clips")
    if "clips" in data and not isinstance(clips, list):
        out.append(
            Diagnostic(
                "E_ANIM_JSON", rel, '"clips" must be a list of clips: the loader finds none.', path=("clips",), doc=doc
            )
        )
    images: list[tuple[str, str, tuple[PathSeg, ...]]] = []
    sheet = data.get("texturePath")
    if isinstance(sheet, str) and sheet.strip():
        images.append(("the spritesheet", sheet, ("texturePath",)))
    for c, clip in enumerate(clips if isinstance(clips, list) else []):
        if not isinstance(clip, dict) or not isinstance(clip.get("frames"), list):
            continue
        name = clip.get("name") if isinstance(clip.get("name"), str) and clip.get("name") else f"#{c + 1}"
        for f, frame in enumerate(clip["frames"]):
            if isinstance(frame, dict) and isinstance(frame.get("texturePath"), str) and frame["texturePath"].strip():
                images.append(
                    (f'clip "{name}" frame {f + 1}', frame["texturePath"], ("clips", c, "frames", f, "texturePath"))
                )
    svg_seen: set[str] = set()
    for what, value, path in images:
        target = project_path(value)
        if target is None:
            continue
        if not project.files.exists(target):
            out.append(
                Diagnostic(
                    "E_MISSING_FRAME",
                    rel,
                    f"{what}: {value} does not exist in the project — the sprite draws nothing on that frame.",
                    path=path,
                    fix=project.case_fix(target),
                    doc=doc,
                )
            )
        elif target.lower().endswith(".svg") and target not in svg_seen:
            svg_seen.add(target)
            for finding in project.svg(target):
                out.append(
                    Diagnostic(
                        finding.code, rel, f"{what}: {value}: {finding.message}", path=path, fix=finding.fix, doc=doc
                    )
                )
    return out
