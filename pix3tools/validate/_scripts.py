"""Project scripts read as text (docs/validate.md, "The disk format"): which files are Script entries and which
names they export (``user:<ExportName>`` ids)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pix3tools.project import ProjectFiles, read_text

__all__ = ["ScriptIndex", "export_names", "is_script_folder", "scan_scripts"]

_ENTRY = re.compile(r"extends\s+Script\b")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_LINE_COMMENT = re.compile(r"(?<![:\\])//[^\n]*")
_EXPORT_CLASS = re.compile(r"\bexport\s+(default\s+)?(?:abstract\s+)?class\b\s*([A-Za-z_$][\w$]*)?")
_EXPORT_CONST = re.compile(r"\bexport\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*class\b")
_EXPORT_LIST = re.compile(r"\bexport\s+(type\s+)?\{([^}]*)\}")
_EXPORT_STAR = re.compile(r"\bexport\s+\*")


def is_script_folder(rel: str) -> bool:
    return rel.startswith("scripts/") or rel.startswith("src/scripts/")


def _is_script_file(rel: str) -> bool:
    return is_script_folder(rel) and rel.endswith((".ts", ".js")) and not rel.endswith(".d.ts")


def export_names(text: str) -> tuple[list[str], bool]:
    """(sorted export names, has ``export *``) of one script's text, comments stripped."""
    code = _LINE_COMMENT.sub("", _BLOCK_COMMENT.sub("", text))
    names: set[str] = set()
    for default, name in _EXPORT_CLASS.findall(code):
        names.add("default" if default else name)
    names.update(_EXPORT_CONST.findall(code))
    for type_only, body in _EXPORT_LIST.findall(code):
        if type_only:
            continue
        for spec in body.split(","):
            spec = spec.strip()
            if not spec or spec.startswith("type "):
                continue
            parts = spec.split()
            names.add(parts[-1] if len(parts) == 3 and parts[1] == "as" else parts[0])
    names.discard("")
    return sorted(names), bool(_EXPORT_STAR.search(code))


@dataclass
class ScriptIndex:
    entries: dict[str, list[str]] = field(default_factory=dict)  # file -> export names
    ids: dict[str, str] = field(default_factory=dict)  # export name -> first file
    opaque: bool = False
    opaque_files: set[str] = field(default_factory=set)


def scan_scripts(files: ProjectFiles) -> ScriptIndex:
    index = ScriptIndex()
    for rel in files.files:
        if not _is_script_file(rel):
            continue
        text = read_text(files.root / rel)
        if text is None or not _ENTRY.search(text):
            continue
        names, star = export_names(text)
        index.entries[rel] = names
        if star:
            index.opaque = True
            index.opaque_files.add(rel)
        for name in names:
            index.ids.setdefault(name, rel)
    return index
