"""Install or update the kit in a project: plan, then apply all at once.

See docs/kit.md, "Install, all or nothing".

Ownership lives in ``.pix3/kit-manifest.json`` (path → sha256 of what the kit wrote). A file the
user edited since is never overwritten; a file from another kit version that the user did not
touch is replaced only with ``update``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pix3tools.core import PROJECT_FILE
from pix3tools.core.private import Refused, plain_name, read_private
from pix3tools.kit._source import Kit, sha256_hex
from pix3tools.kit._writes import Changes, read_project_file
from pix3tools.kit._yamledit import ManifestError, set_agent_kit
from pix3tools.scripttypes import CHECK_TSCONFIG_PATH, EXTENDS_LINE, has_own_tsconfig

MANIFEST = ".pix3/kit-manifest.json"
MAX_MANIFEST_BYTES = 4 * 1024 * 1024  # a kit owns a few dozen files; a bigger manifest is not ours
_SHA256 = re.compile(r"^[0-9a-f]{64}\Z")
ALT_AGENTS = "AGENTS.pix3.md"
PRECEDENCE = (
    "The project's own AGENTS.md wins on process (planning first, config placement); "
    "the Pix3 kit wins on Pix3 facts (YAML, runtime API, pix3 check)."
)
LINK_LINE = "See AGENTS.pix3.md for the Pix3 engine rules."
# Lines that already keep `.pix3/` out of git.
_IGNORE_FORMS = (".pix3", ".pix3/", "/.pix3", "/.pix3/", ".pix3/*", "/.pix3/*")
_WHOLE_DIR_FORMS = (".pix3", ".pix3/", "/.pix3", "/.pix3/")
GITIGNORE_LINES = (
    "# Pix3 editor + CLI bookkeeping (recovery journal, merge log, gaps); the kit manifest stays",
    ".pix3/*",
    "!.pix3/kit-manifest.json",
    "!.pix3/template.json",
)

WRITTEN, UPDATED, UNCHANGED, OUTDATED, SKIPPED = "written", "updated", "unchanged", "outdated", "skipped-edited"


@dataclass
class Outcome:
    path: str
    action: str


@dataclass
class KitPlan:
    root: Path
    kit_version: str
    recorded_version: str
    outcomes: list[Outcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    todos: list[str] = field(default_factory=list)
    changes: Changes = field(default_factory=Changes)
    agents_target: str = "AGENTS.md"
    owned: dict[str, str] = field(default_factory=dict)
    previous_version: str | None = None
    previous_files: dict[str, str] = field(default_factory=dict)
    # .pix3/types/: "own-tsconfig" (none needed), "wanted" (planned), then "written", "current" or
    # "not-written" once applied (pix3tools.scripttypes; after the kit's own files).
    script_types: str = "own-tsconfig"


class KitError(ValueError):
    """The kit cannot be installed; the message says what to fix."""


def kit_path(value: str) -> bool:
    """A path the kit may own: relative, plain names joined by ``/`` (no ``..``, no ``.``, no empty
    segment, no backslash). A manifest is read from disk: anything else in it is not used."""
    return "\\" not in value and all(plain_name(part) for part in value.split("/"))


def _manifest_bytes(root: Path) -> bytes | None:
    try:
        return read_private(root, "kit-manifest.json", limit=MAX_MANIFEST_BYTES)
    except OSError:  # a link at .pix3 or at the manifest counts as no manifest; the write then says why
        return None


def read_manifest(root: Path) -> tuple[str | None, dict[str, str]]:
    """The recorded kit version and the files it owns (path → sha256); entries whose path is not a
    :func:`kit_path` or whose hash is not a sha256 are dropped."""
    raw = _manifest_bytes(root)
    if raw is None:
        return None, {}
    try:
        data: Any = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None, {}
    if not isinstance(data, dict):
        return None, {}
    files = data.get("files")
    owned = (
        {k: v for k, v in files.items() if kit_path(k) and isinstance(v, str) and _SHA256.match(v)}
        if isinstance(files, dict)
        else {}
    )
    version = data.get("version")
    return (version if isinstance(version, str) else None), owned


def alt_agents_text(kit_text: str) -> str:
    """The kit's AGENTS.md with the 'beside your own AGENTS.md' header after its first line."""
    first, newline, rest = kit_text.partition("\n")
    header = (
        "\n"
        "> This project has its own AGENTS.md; this file is the Pix3 kit beside it. " + PRECEDENCE + "\n"
        f"> Add the line `{LINK_LINE}` to AGENTS.md so every agent finds this file.\n"
        "\n"
    )
    return first + newline + header + rest


def read_file(root: Path, path: Path) -> bytes | None:
    """A project file as the kit reads it (``read_project_file``: never through a linked folder)."""
    try:
        return read_project_file(path, root)
    except Refused as exc:
        raise KitError(f"nothing was changed: {exc}") from exc
    except OSError as exc:
        raise KitError(f"cannot read {path} ({exc.strerror}); nothing was changed") from exc


def manifest_text(root: Path, path: Path, pending: bytes | None = None) -> str:
    """The project file's text, as a write already planned leaves it (``pending``) or as read."""
    raw = pending if pending is not None else read_file(root, path)
    if raw is None:
        raise KitError(f"{path} is missing")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KitError(f"{path} is not UTF-8 text; fix it and run again") from exc


def _place(plan: KitPlan, path: str, content: bytes, *, update: bool) -> str:
    target = plan.root / path
    existing = read_file(plan.root, target)
    new_hash = sha256_hex(content)
    if existing is None:
        plan.changes.write(target, content)
        plan.owned[path] = new_hash
        action = WRITTEN
    elif sha256_hex(existing) == new_hash:
        plan.owned[path] = new_hash
        action = UNCHANGED
    elif sha256_hex(existing) == plan.owned.get(path):
        if update:
            plan.changes.write(target, content)
            plan.owned[path] = new_hash
            action = UPDATED
        else:
            action = OUTDATED
    else:
        action = SKIPPED
    plan.outcomes.append(Outcome(path, action))
    return action


def _gitignore(plan: KitPlan) -> None:
    path = plan.root / ".gitignore"
    raw = read_file(plan.root, path)
    text = raw.decode("utf-8", errors="replace") if raw is not None else ""
    lines = {line.strip() for line in text.splitlines()}
    if lines & set(_IGNORE_FORMS):
        if lines & set(_WHOLE_DIR_FORMS) and "!.pix3/kit-manifest.json" not in lines:
            plan.notes.append(
                ".gitignore ignores all of .pix3/, so a fresh clone loses .pix3/kit-manifest.json and every kit "
                "file then counts as edited: replace that line with .pix3/*, !.pix3/kit-manifest.json and "
                "!.pix3/template.json."
            )
        return
    if text and not text.endswith("\n"):
        text += "\n"
    if text:
        text += "\n"
    text += "\n".join(GITIGNORE_LINES) + "\n"
    plan.changes.write(path, text.encode("utf-8"))
    plan.outcomes.append(Outcome(".gitignore", UPDATED))


def _script_types(plan: KitPlan, *, update: bool) -> None:
    """Without a tsconfig.json of its own, the project gets the one-line tsconfig.json that extends
    the check's (so an IDE sees the same types), and .pix3/types/ once the kit's files are written."""
    if has_own_tsconfig(plan.root):
        plan.notes.append("the project has its own tsconfig.json: the scripts are type-checked with it, as is.")
        return
    _place(plan, "tsconfig.json", (EXTENDS_LINE + "\n").encode("utf-8"), update=update)
    plan.script_types = "wanted"


def plan_install(root: Path, kit: Kit, *, update: bool, pending: Changes | None = None) -> KitPlan:
    """Everything the kit would change in ``root``, computed without writing.

    ``pending`` holds changes planned before (by ``--migrate``); the kit's own join them.
    """
    previous_version, owned = read_manifest(root)
    broken_manifest = _manifest_bytes(root) is not None and previous_version is None and not owned
    plan = KitPlan(
        root=root,
        kit_version=kit.version,
        recorded_version=kit.version,
        owned=dict(owned),
        previous_version=previous_version,
        previous_files=dict(owned),
        changes=pending if pending is not None else Changes(),
    )
    if broken_manifest:
        plan.notes.append(
            f"{MANIFEST} could not be read: every kit file that differs from this kit counts as edited; "
            "the manifest is written again."
        )
    agents_kit = kit.files["AGENTS.md"]
    agents_existing = read_file(root, root / "AGENTS.md")
    kit_owns_agents = (
        agents_existing is None
        or sha256_hex(agents_existing) == owned.get("AGENTS.md")
        or agents_existing == agents_kit
    )
    plan.agents_target = ALT_AGENTS if (ALT_AGENTS in owned or not kit_owns_agents) else "AGENTS.md"
    for path in kit.paths():
        if path == "AGENTS.md":
            if plan.agents_target == ALT_AGENTS:
                text = alt_agents_text(agents_kit.decode("utf-8"))
                _place(plan, ALT_AGENTS, text.encode("utf-8"), update=update)
            else:
                _place(plan, "AGENTS.md", agents_kit, update=update)
        elif path == "CLAUDE.md":
            _claude(plan)
        else:
            _place(plan, path, kit.files[path], update=update)
    if plan.agents_target == ALT_AGENTS:
        own = (agents_existing or b"").decode("utf-8", errors="replace")
        if ALT_AGENTS not in own:
            plan.todos.append(
                f"Your AGENTS.md is kept; the Pix3 kit is in {ALT_AGENTS}. Add the line `{LINK_LINE}` to AGENTS.md "
                f"(Claude Code reads it through `@{ALT_AGENTS}` in CLAUDE.md). {PRECEDENCE}"
            )
    _gitignore(plan)
    _script_types(plan, update=update)
    outdated = [o for o in plan.outcomes if o.action == OUTDATED]
    if outdated:
        plan.notes.append(
            f"{len(outdated)} kit file(s) are from another version and unchanged by you: pix3 kit --update replaces them."
        )
        if previous_version is not None:
            plan.recorded_version = previous_version
    _manifest(plan)
    _project_yaml(plan)
    return plan


def _claude(plan: KitPlan) -> None:
    desired = "@AGENTS.md\n" if plan.agents_target == "AGENTS.md" else f"@AGENTS.md\n@{ALT_AGENTS}\n"
    existing = read_file(plan.root, plan.root / "CLAUDE.md")
    if (
        existing is None
        or sha256_hex(existing) == plan.owned.get("CLAUDE.md")
        or existing.decode("utf-8", errors="replace") == desired
    ):
        _place(plan, "CLAUDE.md", desired.encode("utf-8"), update=True)
        return
    plan.outcomes.append(Outcome("CLAUDE.md", SKIPPED))
    wanted = f"@{plan.agents_target}"
    if all(line.strip() != wanted for line in existing.decode("utf-8", errors="replace").splitlines()):
        plan.todos.append(f"Your CLAUDE.md is kept: add the line `{wanted}` to it so Claude Code reads the Pix3 kit.")


def _manifest(plan: KitPlan) -> None:
    files = {path: digest for path, digest in sorted(plan.owned.items()) if plan.changes.exists_after(plan.root / path)}
    data = {"format": 1, "version": plan.recorded_version, "files": files}
    plan.changes.write(plan.root / MANIFEST, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def agent_kit_files(plan: KitPlan) -> list[str]:
    return sorted(o.path for o in plan.outcomes if o.action != SKIPPED and o.path != ".gitignore")


def _project_yaml(plan: KitPlan) -> None:
    path = plan.root / PROJECT_FILE
    text = manifest_text(plan.root, path, plan.changes.writes.get(path))
    try:
        new = set_agent_kit(text, plan.recorded_version, agent_kit_files(plan), where=str(path))
    except ManifestError as exc:
        raise KitError(str(exc)) from exc
    if new != text:
        plan.changes.write(path, new.encode("utf-8"))


_LABELS = {WRITTEN: "wrote", UPDATED: "updated", UNCHANGED: "current", SKIPPED: "SKIPPED", OUTDATED: "outdated"}
_WHY = {
    SKIPPED: "  (edited since the kit wrote it, or not the kit's; left as is)",
    OUTDATED: "  (pix3 kit --update replaces it)",
}


def outcome_lines(plan: KitPlan) -> list[str]:
    lines = [f"  {_LABELS[o.action]:<8} {o.path}{_WHY.get(o.action, '')}" for o in plan.outcomes]
    if plan.script_types == "written":
        lines.append(f"  {'wrote':<8} .pix3/types/, {CHECK_TSCONFIG_PATH}")
    return lines


def report_json(plan: KitPlan) -> dict[str, Any]:
    """``kit --json``: the outcome of each file, by the reference's names."""
    return {
        "kitVersion": plan.kit_version,
        "projectRoot": str(plan.root),
        "files": [{"path": o.path, "action": o.action} for o in plan.outcomes],
        "scriptTypes": plan.script_types,
        "notes": list(plan.notes),
        "todos": list(plan.todos),
    }


def report(plan: KitPlan) -> str:
    lines = [f"Pix3 agent kit {plan.kit_version} in {plan.root}", *outcome_lines(plan)]
    lines.extend(f"note: {note}" for note in plan.notes)
    lines.extend(f"TODO: {todo}" for todo in plan.todos)
    return "\n".join(lines) + "\n"
