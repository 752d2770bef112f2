"""Edit one key of ``pix3project.yaml`` and keep every other byte.

ruamel's round-trip loader tells where each key sits (line and column); the edit splices lines of
the original text, so comments, quoting, flow maps and blank lines elsewhere stay exactly as the
user wrote them. Every edit is checked by loading the result again: the data must equal the
original data with only the intended change, or the edit is refused (nothing is written).
Unusual shapes (``metadata`` in flow style) fall back to a ruamel round-trip dump, checked the same.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError

_PLAIN_SAFE = re.compile(r"^[A-Za-z0-9._/][A-Za-z0-9._/+@ !-]*$")
# Paths and versions that are plain scalars without asking the parser: a letter or `.` first (not a
# number, not `.inf`/`.nan`), no characters YAML gives a meaning to. Saves a parse per kit file.
_OBVIOUSLY_PLAIN = re.compile(r"^(?:[A-Za-z][A-Za-z0-9._/-]*|\.[A-Za-z]{4,}[A-Za-z0-9._/-]*)$")
_SPECIAL_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


class ManifestError(ValueError):
    """``pix3project.yaml`` cannot be edited; the message says why and where."""


def _load_rt(text: str, where: str) -> Any:
    try:
        return YAML(typ="rt").load(text)
    except (YAMLError, ValueError) as exc:  # ruamel reads `._` as a float, then float('.') fails
        raise ManifestError(f"{where} is not valid YAML ({_one_line(str(exc))}); fix it and run again") from exc


def _load_plain(text: str) -> Any:
    return YAML(typ="safe", pure=True).load(text)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def yaml_scalar(value: str) -> str:
    """``value`` as a YAML scalar: plain when it reads back as the same string, else quoted."""
    if _OBVIOUSLY_PLAIN.match(value) and value.lower() not in _SPECIAL_WORDS:
        return value
    if value and value == value.strip() and _PLAIN_SAFE.match(value) and " #" not in value:
        try:
            if _load_plain(f"k: {value}\n") == {"k": value}:
                return value
        except (YAMLError, ValueError):  # ValueError: ruamel's float resolver takes `._`, float() does not
            pass
    return json.dumps(value, ensure_ascii=True)


def render_agent_kit(indent: str, version: str, files: list[str], newline: str = "\n") -> str:
    lines = [f"{indent}agentKit:", f"{indent}  version: {yaml_scalar(version)}"]
    if files:
        lines.append(f"{indent}  files:")
        lines.extend(f"{indent}    - {yaml_scalar(path)}" for path in files)
    else:
        lines.append(f"{indent}  files: []")
    return newline.join(lines) + newline


def _split(text: str) -> list[str]:
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def _is_filler(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _content_end(lines: list[str], start: int, stop: int) -> int:
    """One past the last line in ``[start, stop)`` that is neither blank nor a comment."""
    end = stop
    while end > start and _is_filler(lines[end - 1]):
        end -= 1
    return end


def _next_key_line(mapping: CommentedMap, key: str, fallback: int) -> int:
    keys = list(mapping.keys())
    index = keys.index(key)
    if index + 1 < len(keys):
        line: int = mapping.lc.key(keys[index + 1])[0]
        return line
    return fallback


def _block_entry(key: str, value: CommentedMap, indent: str) -> str:
    for node in _mappings(value):
        node.fa.set_block_style()
    text = _dump_rt({key: value})
    return "".join(indent + line if line.strip() else line for line in _split(text))


def _mappings(value: Any) -> list[Any]:
    found: list[Any] = []
    if isinstance(value, dict):
        if hasattr(value, "fa"):
            found.append(value)
        for item in value.values():
            found.extend(_mappings(item))
    elif isinstance(value, list):
        if hasattr(value, "fa"):
            found.append(value)
        for item in value:
            found.extend(_mappings(item))
    return found


def _dump_rt(doc: Any) -> str:
    yaml = YAML(typ="rt")
    yaml.indent(mapping=2, sequence=4, offset=2)
    stream = io.StringIO()
    yaml.dump(doc, stream)
    return stream.getvalue()


def _verified(new_text: str, expected: Any, where: str) -> str:
    if _load_plain(new_text) != expected:
        raise ManifestError(f"could not edit {where} without changing other keys; left as is")
    return new_text


def _with_trailing_newline(text: str, newline: str) -> str:
    return text if not text or text.endswith("\n") else text + newline


def set_agent_kit(text: str, version: str, files: list[str], *, where: str = "pix3project.yaml") -> str:
    """``text`` with ``metadata.agentKit = {version, files}``; everything else unchanged."""
    doc = _load_rt(text, where)
    plain = _load_plain(text) if doc is not None else {}
    if doc is None:
        doc, plain = CommentedMap(), {}
    if not isinstance(doc, CommentedMap) or not isinstance(plain, dict):
        raise ManifestError(f"{where} is not a YAML mapping; fix it and run again")
    wanted = {"version": version, "files": list(files)}
    expected = dict(plain)
    old_meta = plain.get("metadata")
    if old_meta is not None and not isinstance(old_meta, dict):
        raise ManifestError(f"metadata in {where} is not a mapping; fix it and run again")
    expected["metadata"] = {**(old_meta or {}), "agentKit": wanted}
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = _split(text)
    if "metadata" not in doc:
        body = _with_trailing_newline(text, newline)
        return _verified(
            body + "metadata:" + newline + render_agent_kit("  ", version, files, newline), expected, where
        )
    meta = doc["metadata"]
    meta_line, meta_col = doc.lc.key("metadata")
    block_stop = _next_key_line(doc, "metadata", len(lines))
    if meta is None:
        indent = " " * (meta_col + 2)
        at = meta_line + 1
        lines[meta_line] = _with_trailing_newline(lines[meta_line], newline)
        new = [*lines[:at], render_agent_kit(indent, version, files, newline), *lines[at:]]
        return _verified("".join(new), expected, where)
    if not isinstance(meta, CommentedMap):
        raise ManifestError(f"metadata in {where} is not a mapping; fix it and run again")
    if meta.fa.flow_style():
        # A one-line `metadata: {…}`: rewrite that entry in block style, keep every other line.
        meta["agentKit"] = wanted
        block = _block_entry("metadata", meta, " " * meta_col)
        stop = _content_end(lines, meta_line + 1, block_stop)
        stop = max(stop, meta_line + 1)
        return _verified("".join([*lines[:meta_line], block, *lines[stop:]]), expected, where)
    keys = list(meta.keys())
    indent = " " * (meta.lc.key(keys[0])[1] if keys else meta_col + 2)
    block_end = _content_end(lines, meta_line + 1, block_stop)
    if "agentKit" in meta:
        start = meta.lc.key("agentKit")[0]
        stop = _content_end(lines, start + 1, _next_key_line(meta, "agentKit", block_end))
        if stop <= start:
            stop = start + 1
        current = "".join(lines[start:stop])
        rendered = render_agent_kit(indent, version, files, newline)
        if _load_plain(current) == {"agentKit": wanted} and current.endswith("\n"):
            return text
        new = [*lines[:start], rendered, *lines[stop:]]
    else:
        if block_end > 0:
            lines[block_end - 1] = _with_trailing_newline(lines[block_end - 1], newline)
        new = [*lines[:block_end], render_agent_kit(indent, version, files, newline), *lines[block_end:]]
    return _verified("".join(new), expected, where)


def remove_metadata_key(text: str, key: str, *, where: str = "pix3project.yaml") -> tuple[str, Any]:
    """``text`` without ``metadata.<key>``, and the removed value (``None`` when absent)."""
    doc = _load_rt(text, where)
    plain = _load_plain(text)
    if not isinstance(doc, CommentedMap) or not isinstance(plain, dict):
        return text, None
    meta = doc.get("metadata")
    plain_meta = plain.get("metadata")
    if not isinstance(meta, CommentedMap) or not isinstance(plain_meta, dict) or key not in meta:
        return text, None
    removed = plain_meta[key]
    expected = dict(plain)
    rest = {k: v for k, v in plain_meta.items() if k != key}
    expected["metadata"] = rest or None
    lines = _split(text)
    meta_line, meta_col = doc.lc.key("metadata")
    if meta.fa.flow_style():
        del meta[key]
        expected["metadata"] = rest
        stop = max(_content_end(lines, meta_line + 1, _next_key_line(doc, "metadata", len(lines))), meta_line + 1)
        block = _block_entry("metadata", meta, " " * meta_col) if rest else " " * meta_col + "metadata: {}\n"
        return _verified("".join([*lines[:meta_line], block, *lines[stop:]]), expected, where), removed
    block_end = _content_end(lines, meta_line + 1, _next_key_line(doc, "metadata", len(lines)))
    start = meta.lc.key(key)[0]
    stop = _content_end(lines, start + 1, _next_key_line(meta, key, block_end))
    stop = max(stop, start + 1)
    new = "".join([*lines[:start], *lines[stop:]])
    return _verified(new, expected, where), removed
