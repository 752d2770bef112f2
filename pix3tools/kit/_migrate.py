"""``pix3 kit --migrate``: a 1.x kit to 2.x, every change reported (docs/kit.md, "Migrating a 1.x kit").

Touches only the kit's own traces: the retired ``pix3 mcp`` server in ``.mcp.json``,
``metadata.pix3Hybrid``, kit files 2.x no longer ships, then the kit with ``--update``
semantics. Edited files are kept and reported; nothing outside the project is edited.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pix3tools.core import PROJECT_FILE
from pix3tools.kit._install import (
    ALT_AGENTS,
    SKIPPED,
    KitError,
    KitPlan,
    Outcome,
    manifest_text,
    outcome_lines,
    plan_install,
    read_file,
    read_manifest,
    report_json,
)
from pix3tools.kit._source import Kit, sha256_hex
from pix3tools.kit._writes import relative
from pix3tools.kit._yamledit import ManifestError, remove_metadata_key
from pix3tools.project import load_manifest

STAGING = ".pix3/kit-migrate"

_CLI_WORDS = (
    re.compile(r"^@pix3/cli(@\S+)?$"),
    re.compile(r"(^|[\\/])pix3(\.cmd)?$"),
    re.compile(r"[\\/]packages[\\/]cli[\\/](src|dist)[\\/]index\.(ts|js)$"),
    re.compile(r"[\\/]@pix3[\\/]cli[\\/]dist[\\/]index\.js$"),
)
# Words that mark text written for the 1.x kit → how the report names them.
MARKERS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bpix3 mcp\b"), "`pix3 mcp`"),
    (re.compile(r"\bpix3 serve\b"), "`pix3 serve`"),
    (re.compile(r"\bpix3 read\b"), "`pix3 read`"),
    (re.compile(r"live channel", re.IGNORECASE), "the live channel"),
    (re.compile(r"`(game_run|game_input|play_start|read_errors|set_property)`"), "1.x in-editor tools"),
)


@dataclass
class Step:
    path: str
    action: str  # removed | kept | staged
    detail: str


@dataclass
class MigratePlan:
    root: Path
    from_version: str | None
    kit: KitPlan
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    todos: list[str] = field(default_factory=list)
    prune: list[Path] = field(default_factory=list)


def is_retired_server(command: Sequence[str]) -> bool:
    """A 1.x ``pix3 mcp`` launch: the word ``mcp`` and a word naming the 1.x CLI."""
    words = [w for w in command if isinstance(w, str)]
    return "mcp" in words and any(p.search(w) for w in words for p in _CLI_WORDS)


def markers_in(text: str) -> list[str]:
    return [label for pattern, label in MARKERS if pattern.search(text)]


def _mcp_json(plan: MigratePlan) -> bool:
    path = plan.root / ".mcp.json"
    raw = read_file(plan.root, path)
    if raw is None:
        return False
    text = raw.decode("utf-8", errors="replace")
    try:
        data: Any = json.loads(text)
    except ValueError:
        if re.search(r"\bmcp\b", text) and "pix3" in text:
            plan.steps.append(
                Step(".mcp.json", "kept", "not valid JSON, left as is; remove the 1.x `pix3 mcp` server by hand")
            )
        return False
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return False
    removed = False
    for name, entry in list(servers.items()):
        if not isinstance(entry, dict):
            continue
        args = entry.get("args")
        launch = [
            entry.get("command", ""),
            *(a for a in (args if isinstance(args, list) else []) if isinstance(a, str)),
        ]
        if is_retired_server([str(w) for w in launch]):
            del servers[name]
            removed = True
            detail = f"mcpServers.{name} ({' '.join(str(w) for w in launch)}) — the 1.x live channel"
            others = [k for k in data if k != "mcpServers"]
            if not servers and not others:
                detail += "; the file had nothing else and is deleted"
            plan.steps.append(Step(".mcp.json", "removed", detail))
    if removed:
        others = [k for k in data if k != "mcpServers"]
        if not servers and not others:
            plan.kit.changes.delete(path)
        else:
            plan.kit.changes.write(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return removed


def _codex(plan: MigratePlan) -> None:
    path = plan.root / ".codex" / "config.toml"
    raw = read_file(plan.root, path)
    if raw is None:
        return
    text = raw.decode("utf-8", errors="replace")
    for match in re.finditer(r"(?ms)^\s*\[mcp_servers\.([^\]]+)\][^\n]*\n(.*?)(?=^\s*\[|\Z)", text):
        body = match.group(0)
        if '"mcp"' in body and "pix3" in body:
            plan.steps.append(
                Step(
                    ".codex/config.toml",
                    "kept",
                    f"[mcp_servers.{match.group(1)}] launches the retired `pix3 mcp`; delete it by hand",
                )
            )


def _hybrid(plan: MigratePlan) -> None:
    path = plan.root / PROJECT_FILE
    text = manifest_text(plan.root, path)
    try:
        new, removed = remove_metadata_key(text, "pix3Hybrid", where=str(path))
    except ManifestError as exc:
        raise KitError(str(exc)) from exc
    if new != text:
        plan.kit.changes.write(path, new.encode("utf-8"))
        value = json.dumps(removed, ensure_ascii=False, separators=(",", ":"), default=str)
        plan.steps.append(
            Step(PROJECT_FILE, "removed", f"metadata.pix3Hybrid ({value}) — the 1.x cloud link; 2.x has no cloud")
        )


def _retired_files(plan: MigratePlan, kit: Kit, old_owned: dict[str, str]) -> None:
    keep = {*kit.files, ALT_AGENTS, "tsconfig.json"}
    for rel in sorted(old_owned):
        if rel in keep:
            continue
        path = plan.root / rel
        data = read_file(plan.root, path)
        if data is None:
            continue
        if sha256_hex(data) == old_owned[rel]:
            plan.kit.changes.delete(path)
            plan.prune.append(path.parent)
            plan.steps.append(Step(rel, "removed", "a file the 2.x kit no longer ships"))
        else:
            plan.steps.append(Step(rel, "kept", "a 1.x kit file you edited; the 2.x kit no longer ships it"))
            plan.todos.append(f"Salvage what you need from {rel}, then delete it (the 2.x kit no longer ships it).")


def plan_migrate(root: Path, kit: Kit) -> MigratePlan:
    previous_version, old_owned = read_manifest(root)
    from_version = previous_version or _recorded_kit_version(root)
    # The kit plan is computed last but its change set collects every write of the migration.
    placeholder = KitPlan(root=root, kit_version=kit.version, recorded_version=kit.version)
    plan = MigratePlan(root=root, from_version=from_version, kit=placeholder)
    removed_server = _mcp_json(plan)
    _codex(plan)
    _hybrid(plan)
    _retired_files(plan, kit, old_owned)
    kit_plan = plan_install(root, kit, update=True, pending=plan.kit.changes)
    # Files deleted above are gone from the manifest's point of view.
    plan.kit = kit_plan
    for outcome in kit_plan.outcomes:
        _stage_if_still_1x(plan, kit, outcome)
    agents = read_file(root, root / "AGENTS.md")
    if "AGENTS.md" in old_owned and kit_plan.agents_target == ALT_AGENTS and agents is not None:
        found = markers_in(agents.decode("utf-8", errors="replace"))
        if found:
            plan.steps.append(
                Step("AGENTS.md", "kept", f"your edited copy of the 1.x kit (mentions {', '.join(found)})")
            )
            plan.todos.append(
                f"Remove the 1.x kit text from AGENTS.md (the 2.x kit is in {ALT_AGENTS}); keep your own rules."
            )
    mcp = root / ".mcp.json"
    has_browser = False
    if kit_plan.changes.exists_after(mcp):
        pending = kit_plan.changes.writes.get(mcp)
        current = pending if pending is not None else (read_file(root, mcp) or b"")
        has_browser = "pix3-browser" in current.decode("utf-8", errors="replace")
    if (removed_server or (from_version or "").startswith("1.")) and not has_browser:
        plan.todos.append("Run `npx pix3 agent-setup` for the 2.x browser tools, then start a new agent thread.")
        plan.todos.append(
            "Delete any [mcp_servers.pix3] table in ~/.codex/config.toml (the 1.x server; this command never edits it)."
        )
    if not _has_vite_plugin(root):
        plan.notes.append(
            "package.json has no @pix3/vite-plugin: moving the project onto Vite (pix3() in vite.config) is by hand."
        )
    return plan


def _stage_if_still_1x(plan: MigratePlan, kit: Kit, outcome: Outcome) -> None:
    if outcome.action != SKIPPED or outcome.path == "CLAUDE.md":
        return
    if outcome.path == "AGENTS.md" and plan.kit.agents_target == ALT_AGENTS:
        return
    raw = read_file(plan.root, plan.root / outcome.path)
    found = markers_in(raw.decode("utf-8", errors="replace")) if raw is not None else []
    if not found:
        return
    staged = plan.root / STAGING / outcome.path
    plan.kit.changes.write(staged, kit.files.get(outcome.path, b""))
    plan.steps.append(
        Step(
            outcome.path,
            "staged",
            f"mentions {', '.join(found)}; the 2.x text is in {relative(staged, plan.root)}",
        )
    )
    plan.todos.append(
        f"Merge {outcome.path} by hand: your edits are kept, the 2.x text is in {relative(staged, plan.root)}."
    )


def _recorded_kit_version(root: Path) -> str | None:
    manifest = load_manifest(root)
    data = manifest.data if manifest is not None else None
    meta = data.get("metadata") if isinstance(data, dict) else None
    kit = meta.get("agentKit") if isinstance(meta, dict) else None
    version = kit.get("version") if isinstance(kit, dict) else None
    return str(version) if version is not None else None


def _has_vite_plugin(root: Path) -> bool:
    try:
        data = json.loads(read_file(root, root / "package.json") or b"")
    except (KitError, ValueError):
        return False
    if not isinstance(data, dict):
        return False
    return any(
        isinstance(data.get(key), dict) and "@pix3/vite-plugin" in data[key]
        for key in ("dependencies", "devDependencies")
    )


_STEP_LABELS = {"removed": "removed", "kept": "KEPT", "staged": "STILL 1.x"}


def migrate_report_json(plan: MigratePlan) -> dict[str, Any]:
    """``kit --migrate --json``: the 1.x steps, then the kit's own report."""
    kit = report_json(plan.kit)
    return {
        "migratedFrom": plan.from_version,
        "kitVersion": kit["kitVersion"],
        "projectRoot": kit["projectRoot"],
        "steps": [{"path": s.path, "action": s.action, "detail": s.detail} for s in plan.steps],
        "files": kit["files"],
        "scriptTypes": kit["scriptTypes"],
        "notes": [*kit["notes"], *plan.notes],
        "todos": [*kit["todos"], *plan.todos],
    }


def migrate_report(plan: MigratePlan) -> str:
    lines = [f"Pix3 kit migration {plan.from_version or '(no kit recorded)'} → {plan.kit.kit_version} in {plan.root}"]
    if not plan.steps:
        lines.append("  nothing of the 1.x kit left to remove")
    lines.extend(f"  {_STEP_LABELS[s.action]:<9} {s.path}: {s.detail}" for s in plan.steps)
    lines.extend(outcome_lines(plan.kit))
    lines.extend(f"note: {note}" for note in [*plan.kit.notes, *plan.notes])
    lines.extend(f"TODO: {todo}" for todo in [*plan.kit.todos, *plan.todos])
    return "\n".join(lines) + "\n"
