"""Locale tables and keys (docs/validate.md, "Project rules"): tables, their images, keys in scenes
and scripts, looked up the way the runtime's LocalizationService does."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pix3tools.core import PROJECT_FILE
from pix3tools.project import project_path, read_text
from pix3tools.scene import Document, PathSeg
from pix3tools.validate._anim import json_doc
from pix3tools.validate._context import ValidateProject
from pix3tools.validate._keys import KeyUse
from pix3tools.validate._report import Diagnostic
from pix3tools.validate._values import describe

__all__ = ["LocaleCheck", "Localization", "check_localization", "resolve_localization"]

_SCRIPT_FILE = re.compile(r"\.(?:[cm]?[jt]s|[jt]sx)$")
_EXCLUDED = re.compile(r"(?:\.d\.ts|\.spec\.[cm]?[jt]sx?|\.test\.[cm]?[jt]sx?)$")
_CALL = re.compile(r"\b(tr|trSprite|trPlural|setTextKey)\s*\(\s*(['\"`])([^'\"`\r\n]+?)\2")


@dataclass
class Localization:
    default: str
    fallback: str
    locales: list[str]
    declared: bool
    manifest_index: dict[str, int] = field(default_factory=dict)  # id -> index in localization.locales

    @property
    def table_ids(self) -> list[str]:
        return list(dict.fromkeys([self.default, self.fallback, *self.locales]))


def resolve_localization(project: ValidateProject, manifest: Document | None) -> Localization | None:
    block = manifest.data.get("localization") if manifest is not None and isinstance(manifest.data, dict) else None
    if isinstance(block, dict):
        raw = block.get("locales")
        index: dict[str, int] = {}
        locales: list[str] = []
        for i, item in enumerate(raw if isinstance(raw, list) else []):
            if isinstance(item, str) and item.strip() and item not in index:
                index[item] = i
                locales.append(item)
        default = block.get("defaultLocale")
        default = default if isinstance(default, str) and default.strip() else (locales[0] if locales else None)
        if default:
            fallback = block.get("fallbackLocale")
            fallback = fallback if isinstance(fallback, str) and fallback.strip() else default
            if default not in locales:
                locales.insert(0, default)
            return Localization(default, fallback, locales, True, index)
    found = sorted(
        rel[len("locales/") : -len(".json")]
        for rel in project.files.files
        if rel.startswith("locales/") and rel.endswith(".json") and rel.count("/") == 1
    )
    if not found:
        return None
    default = "en" if "en" in found else found[0]
    return Localization(default, default, found, False)


@dataclass
class _Table:
    strings: dict[str, Any] = field(default_factory=dict)
    sprites: dict[str, Any] = field(default_factory=dict)


@dataclass
class LocaleCheck:
    """The tables loaded once per run: their own diagnostics, and key lookups for scenes/scripts."""

    project: ValidateProject
    table_diagnostics: list[Diagnostic] = field(default_factory=list)
    lookup: list[_Table] | None = None  # None: not localised, or the default table did not load
    where: str = ""
    default: str = ""

    def has(self, section: str, key: str) -> bool:
        return any(isinstance(v := getattr(t, section).get(key), str) and v != "" for t in self.lookup or [])

    def _text_fix(self, key: str) -> str:
        return f'add "{key}": "<text>" to "strings" of locales/{self.default}.json (and the other locales)'

    def _sprite_fix(self, key: str) -> str:
        return f'add "{key}": "res://sprites/…" to "sprites" of locales/{self.default}.json (and the other locales)'

    def key_diagnostics(self, rel: str, uses: list[KeyUse], doc: Document) -> list[Diagnostic]:
        """E_LOCALE_KEY / E|W_LOCALE_SPRITE_KEY for the keys one scene sets."""
        out: list[Diagnostic] = []
        if self.lookup is None:
            return out
        for use in uses:
            if use.kind == "label":
                if not self.has("strings", use.key):
                    out.append(
                        Diagnostic(
                            "E_LOCALE_KEY",
                            rel,
                            f'labelKey "{use.key}" has no text in {self.where}: the node shows "{use.key}" on screen.',
                            node_id=use.node_id,
                            path=use.path,
                            fix=self._text_fix(use.key),
                            doc=doc,
                        )
                    )
            elif not self.has("sprites", use.key):
                outcome = (
                    "the node has no texture of its own and draws nothing"
                    if use.severe
                    else "the node shows its own texture in every locale"
                )
                out.append(
                    Diagnostic(
                        "E_LOCALE_SPRITE_KEY" if use.severe else "W_LOCALE_SPRITE_KEY",
                        rel,
                        f'{use.prop} "{use.key}" has no image in "sprites" of {self.where}: {outcome}.',
                        node_id=use.node_id,
                        path=use.path,
                        fix=self._sprite_fix(use.key),
                        doc=doc,
                    )
                )
        return out

    def script_diagnostics(self) -> list[Diagnostic]:
        if self.lookup is None:
            return []
        return _script_keys(self.project, self.has, self.where, self._text_fix, self._sprite_fix)


def check_localization(project: ValidateProject, manifest: Document | None, whole: bool) -> LocaleCheck:
    """Load the tables; their diagnostics are kept only on whole-project runs."""
    result = LocaleCheck(project)
    loc = resolve_localization(project, manifest)
    if loc is None:
        return result
    out: list[Diagnostic] = []
    tables: dict[str, _Table] = {}
    for locale in loc.table_ids:
        critical = locale in (loc.default, loc.fallback)
        prefix = "E_" if critical else "W_"
        role = (
            "the default locale"
            if locale == loc.default
            else "the fallback locale"
            if locale == loc.fallback
            else "a declared locale"
        )
        consequence = "every labelKey shows the key itself" if critical else f"its texts fall back to {loc.fallback}"
        rel = f"locales/{locale}.json"
        text = read_text(project.root / rel) if project.files.exists(rel) else None
        if text is None:
            if locale == loc.default:
                path: tuple[PathSeg, ...] = ("localization", "defaultLocale")
            elif locale == loc.fallback:
                path = ("localization", "fallbackLocale")
            else:
                path = ("localization", "locales", loc.manifest_index.get(locale, 0))
            out.append(
                Diagnostic(
                    prefix + "LOCALE_MISSING",
                    PROJECT_FILE,
                    f'{role} "{locale}" has no table {rel}: the game loads it empty — {consequence}.',
                    path=path if loc.declared else None,
                    fix=f'write {rel} (copy the default locale\'s table), or drop "{locale}" from localization:',
                    doc=manifest,
                )
            )
            continue
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            message = str(exc).splitlines()[0] if str(exc) else "parse error"
            out.append(
                Diagnostic(
                    prefix + "LOCALE_JSON",
                    rel,
                    f'{rel} is not valid JSON ({message}): {role} "{locale}" loads empty — {consequence}.',
                )
            )
            continue
        if not isinstance(data, dict):
            out.append(
                Diagnostic(
                    prefix + "LOCALE_JSON",
                    rel,
                    f'{rel} must be a JSON object with "strings" (and "sprites"): {role} "{locale}" loads empty —'
                    f" {consequence}.",
                )
            )
            continue
        doc = json_doc(text)
        table = _Table()
        for section, what in (("strings", "text"), ("sprites", "res:// image")):
            value = data.get(section)
            if value is None and section not in data:
                continue
            if not isinstance(value, dict):
                out.append(
                    Diagnostic(
                        prefix + "LOCALE_JSON",
                        rel,
                        f'"{section}" of {rel} must be an object of key → {what}; the runtime reads none of it —'
                        f" {consequence}.",
                        path=(section,),
                        doc=doc,
                    )
                )
                continue
            setattr(table, section, value)
            for key, item in value.items():
                if isinstance(item, str):
                    continue
                drop = " and the key shows as itself" if critical else f", the text falls back to {loc.fallback}"
                if isinstance(item, dict):
                    sub = next(iter(item), "name")
                    fix = f'keys are flat: "{key}.{sub}": "…"'
                else:
                    fix = f'write it as a string: "{key}": "{json.dumps(item) if item is not None else ""}"'
                out.append(
                    Diagnostic(
                        prefix + "LOCALE_VALUE",
                        rel,
                        f'{section}."{key}" in {rel} is {describe(item, json=True)}, not a string: the runtime drops it{drop}.',
                        path=(section, key),
                        fix=fix,
                        doc=doc,
                    )
                )
        for key, item in table.sprites.items():
            if not isinstance(item, str):
                continue
            target = project_path(item)
            if target is None:
                continue
            if not project.files.exists(target):
                out.append(
                    Diagnostic(
                        "E_MISSING_LOCALE_SPRITE",
                        rel,
                        f'sprites."{key}" in {rel} is {item}, which does not exist in the project: a node keyed to'
                        f' "{key}" draws nothing in this locale.',
                        path=("sprites", key),
                        fix=project.case_fix(target),
                        doc=doc,
                    )
                )
            elif target.lower().endswith(".svg"):
                for finding in project.svg(target):
                    out.append(
                        Diagnostic(
                            finding.code,
                            rel,
                            f'sprites."{key}": {item}: {finding.message}',
                            path=("sprites", key),
                            fix=finding.fix,
                            doc=doc,
                        )
                    )
        tables[locale] = table
    if whole:
        result.table_diagnostics.extend(out)
    default_table = tables.get(loc.default)
    if default_table is None:
        return result
    result.lookup = [default_table] + (
        [tables[loc.fallback]] if loc.fallback != loc.default and loc.fallback in tables else []
    )
    result.where = f"locales/{loc.default}.json" + (
        f" nor in locales/{loc.fallback}.json" if loc.fallback != loc.default else ""
    )
    result.default = loc.default
    return result


def _script_keys(
    project: ValidateProject,
    has: Callable[[str, str], bool],
    where: str,
    text_fix: Callable[[str], str],
    sprite_fix: Callable[[str], str],
) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for rel in project.files.files:
        if not _SCRIPT_FILE.search(rel) or _EXCLUDED.search(rel):
            continue
        text = read_text(project.root / rel)
        if text is None:
            continue
        for match in _CALL.finditer(text):
            fn, _, key = match.groups()
            if "${" in key:
                continue
            line = text.count("\n", 0, match.start()) + 1
            if fn == "trSprite":
                if not has("sprites", key):
                    out.append(
                        Diagnostic(
                            "W_LOCALE_SPRITE_KEY",
                            rel,
                            f'trSprite(\'{key}\'): "{key}" has no image in "sprites" of {where}, so the script gets null.',
                            line=line,
                            fix=sprite_fix(key),
                        )
                    )
            elif fn == "trPlural":
                if not has("strings", f"{key}.other") and not has("strings", key):
                    out.append(
                        Diagnostic(
                            "E_LOCALE_SCRIPT_KEY",
                            rel,
                            f'trPlural(\'{key}\'): neither "{key}.other" nor "{key}" has text in {where}: a count with no'
                            f' "{key}.<one|few|many>" of its own shows "{key}" on screen.',
                            line=line,
                            fix=text_fix(f"{key}.other"),
                        )
                    )
            elif not has("strings", key):
                out.append(
                    Diagnostic(
                        "E_LOCALE_SCRIPT_KEY",
                        rel,
                        f'{fn}(\'{key}\'): "{key}" has no text in {where}: the game shows "{key}" on screen.',
                        line=line,
                        fix=text_fix(key),
                    )
                )
    return out
