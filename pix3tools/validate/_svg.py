"""SVG-as-image checks (docs/validate.md, "SVG checks"): pure string work on the file's text."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SvgFinding", "inspect_svg"]

SVG_NS = "http://www.w3.org/2000/svg"
_PROLOG = re.compile(r"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>)", re.DOTALL | re.IGNORECASE)
_ROOT = re.compile(r"<(?:([A-Za-z_][\w.-]*):)?svg(?=[\s/>])")
_ATTR = re.compile(r"""([A-Za-z_:][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_ABSOLUTE = re.compile(
    r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(px|pt|pc|mm|cm|in|q|em|ex)?\s*", re.IGNORECASE
)
_HREF = re.compile(r"""\s(?:xlink:)?href\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_URL = re.compile(r"""url\(\s*(['"]?)([^)'"]*)\1\s*\)""")
_IMPORT = re.compile(r"@import\s+([^;]*)")


@dataclass(frozen=True)
class SvgFinding:
    code: str
    message: str
    fix: str | None


def _absolute(value: str | None) -> bool:
    if value is None:
        return False
    match = _ABSOLUTE.fullmatch(value)
    return match is not None and float(match.group(1)) > 0


def _viewbox(value: str | None) -> bool:
    if value is None:
        return False
    parts = [p for p in re.split(r"[\s,]+", value.strip()) if p]
    if len(parts) != 4:
        return False
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        return False
    return numbers[2] > 0 and numbers[3] > 0


def inspect_svg(text: str) -> list[SvgFinding]:
    """Findings in order: invalid root/xmlns, size, external references."""
    if text.startswith("\ufeff"):
        text = text[1:]
    pos = 0
    while True:
        match = _PROLOG.match(text, pos)
        if not match or match.end() == pos:
            break
        pos = match.end()
    while pos < len(text) and text[pos].isspace():
        pos += 1
    root = _ROOT.match(text, pos)
    if not root:
        return [
            SvgFinding(
                "E_SVG_INVALID",
                "the file does not start with an <svg> root element, so no browser decodes it.",
                f'start from <svg xmlns="{SVG_NS}" width="W" height="H" viewBox="0 0 W H">',
            )
        ]
    end = text.find(">", root.end())
    tag = text[root.end() : end if end >= 0 else len(text)]
    attrs: dict[str, str] = {}
    for name, dq, sq in _ATTR.findall(tag):
        attrs.setdefault(name, dq if dq or not sq else sq)
    findings: list[SvgFinding] = []
    prefix = root.group(1)
    xmlns = attrs.get(f"xmlns:{prefix}" if prefix else "xmlns")
    if xmlns != SVG_NS:
        has = "no xmlns" if xmlns is None else f'xmlns="{xmlns}"'
        findings.append(
            SvgFinding(
                "E_SVG_INVALID",
                f"the <svg> root has {has}; as an image (which every texture load is) the browser refuses to decode it.",
                f'add xmlns="{SVG_NS}" to the <svg> tag',
            )
        )
    width, height = _absolute(attrs.get("width")), _absolute(attrs.get("height"))
    viewbox = _viewbox(attrs.get("viewBox"))
    if not width and not height:
        if viewbox:
            findings.append(
                SvgFinding(
                    "W_SVG_VIEWBOX_ONLY",
                    "the <svg> root has a viewBox but no width/height: Chrome draws it as 300x150 and the art is letterboxed.",
                    "add width/height in px to the <svg> tag (the viewBox's size)",
                )
            )
        else:
            findings.append(
                SvgFinding(
                    "E_SVG_NO_SIZE",
                    "the <svg> root has no width/height and no viewBox: it renders into a 300x150 box, cropped.",
                    'add width="W" height="H" viewBox="0 0 W H" to the <svg> tag',
                )
            )
    elif (width != height) and not viewbox:
        have, missing_default = ("width", "150") if width else ("height", "300")
        findings.append(
            SvgFinding(
                "E_SVG_NO_SIZE",
                f"the <svg> root has only {have} and no viewBox: the missing dimension defaults to {missing_default}px.",
                "add the other dimension (or a viewBox) to the <svg> tag",
            )
        )
    refs: list[str] = []
    for dq, sq in _HREF.findall(text):
        value = dq or sq
        if not value.startswith("#") and not value.startswith("data:"):
            refs.append(f'href="{value}"')
    for _, value in _URL.findall(text):
        value = value.strip()
        if not value.startswith("#") and not value.startswith("data:"):
            refs.append(f"url({value})")
    refs.extend(f"@import {m.strip()}" for m in _IMPORT.findall(text))
    unique = list(dict.fromkeys(refs))
    if unique:
        listed = ", ".join(unique[:3]) + (", …" if len(unique) > 3 else "")
        findings.append(
            SvgFinding(
                "W_SVG_EXTERNAL_REF",
                f"references outside the file ({listed}) never load when an SVG is drawn as an image — not in the"
                " editor, not in play mode, not in the export.",
                "inline what it references (paths, gradients, data: images) into the file",
            )
        )
    return findings
