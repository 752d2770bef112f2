"""The kit names only what exists: commands, flags, npm scripts, tools, codes, node types.

The checker runs on the kit this build generates, on the kit a build with every command would
generate, and on broken samples (so it is seen to fail).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from pix3tools.core import CLI_VERSION
from pix3tools.core.commandtable import COMMANDS, ORDER
from pix3tools.core.usage import COMMAND_USAGE, OVERVIEW_BLOCKS
from pix3tools.gap import KINDS
from pix3tools.kit import Kit, load_kit
from pix3tools.kit._registries import BRIDGE_TOOLS, diagnostic_codes, node_types, starter_scripts

# Protocol reasons the kit may quote (docs/devserver.md, "Flush"; docs/bridge.md, "4. Refusals").
REASONS = {"gesture_in_progress", "external_change", "write_failed", "timeout", "tab_closed", "not_owner"}
# Other snake_case words the kit may put in backticks: folder names.
FOLDERS = {"node_modules"}

SKILLS = ("pix3-scene-format", "pix3-nodes", "pix3-scripts", "pix3-verify", "pix3-editor")
REQUIRED = {
    "AGENTS.md",
    "CLAUDE.md",
    ".claude/skills/pix3-scene-format/pix3anim.md",
    *(f".claude/skills/{s}/SKILL.md" for s in SKILLS),
    *(f".claude/skills/{s}/reference.md" for s in SKILLS),
    "design/tests/bots/pix3-test-bot.d.ts",
}

_INVOCATION = re.compile(r"\bpix3 ([a-z][a-z-]*)")
_FLAG = re.compile(r"--[a-z][a-z-]*")
_NPM_RUN = re.compile(r"`npm run ([a-z][a-z:-]*)`")
_BRIDGE = re.compile(r"\bpix3_[a-z_]+")
_CODE = re.compile(r"\b[EW]_[A-Z0-9]+(?:_[A-Z0-9]+)*\b")
_SNAKE = re.compile(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`")
_CORE = re.compile(r"\bcore:([A-Z][A-Za-z0-9]*)")
_NODE_TYPE = re.compile(r"`([A-Z][A-Za-z0-9]*(?:2D|3D|Node|Mesh|MeshInstance)|Group|PostProcess|AudioPlayer)`")


def _scope(line: str, start: int) -> str:
    """From ``start`` to the end of the backtick span it sits in, or to the end of the line."""
    if line[:start].count("`") % 2 == 1:
        end = line.find("`", start)
        return line[start : end if end >= 0 else len(line)]
    return line[start:]


def drift(
    files: dict[str, str],
    *,
    commands: Iterable[str],
    cdp_tools: set[str],
    codes: set[str],
    types: set[str],
) -> list[str]:
    commands = set(commands)
    problems: list[str] = []
    for path, text in files.items():
        if "{{" in text:
            problems.append(f"{path}: unresolved directive")
        if path != "CLAUDE.md" and CLI_VERSION not in text:
            problems.append(f"{path}: no kit version")
        for line in text.split("\n"):
            for match in _INVOCATION.finditer(line):
                name = match.group(1)
                if name not in commands and name != "help":
                    problems.append(f"{path}: names `pix3 {name}`, not a command of this build")
                    continue
                block = OVERVIEW_BLOCKS.get(name, "") + COMMAND_USAGE.get(name, "")
                for flag in _FLAG.findall(_scope(line, match.start())):
                    if flag != "--help" and flag not in block:
                        problems.append(f"{path}: `pix3 {name} {flag}` is not in its usage")
        for tool in _BRIDGE.findall(text):
            if tool not in BRIDGE_TOOLS:
                problems.append(f"{path}: bridge tool {tool} does not exist")
        for word in _SNAKE.findall(text):
            if word not in cdp_tools | REASONS | FOLDERS and word not in BRIDGE_TOOLS:
                problems.append(f"{path}: `{word}` is no chrome-devtools-mcp tool, bridge tool or reason")
        for code in _CODE.findall(text):
            if code not in codes:
                problems.append(f"{path}: diagnostic code {code} is emitted by no command")
        for component in _CORE.findall(text):
            if f"core:{component}" not in _known_components():
                problems.append(f"{path}: core:{component} is no built-in component")
        for node_type in _NODE_TYPE.findall(text):
            if node_type not in types:
                problems.append(f"{path}: node type {node_type} does not exist")
        for script in _NPM_RUN.findall(text):
            if script not in starter_scripts():
                problems.append(f"{path}: `npm run {script}` is no starter script")
        if path.endswith("/SKILL.md"):
            skill = path.split("/")[-2]
            if not re.match(rf"---\nname: {re.escape(skill)}\ndescription: [^\n]+\n---\n", text):
                problems.append(f"{path}: front matter must name {skill}")
    missing = REQUIRED - set(files)
    if missing:
        problems.append(f"kit lacks {sorted(missing)}")
    agents = files.get("AGENTS.md", "")
    if set(_NPM_RUN.findall(agents)) != set(starter_scripts()):
        problems.append("AGENTS.md must name every starter npm script")
    if f"--kind {'|'.join(KINDS)}" not in agents or "pix3 gap" not in agents:
        problems.append("AGENTS.md must show pix3 gap with the kinds in order")
    for needle in (".pix3/gaps.jsonl", "work around", "pix3-editor/SKILL.md", "pix3anim.md"):
        if needle not in agents:
            problems.append(f"AGENTS.md must mention {needle}")
    if files.get("CLAUDE.md") != "@AGENTS.md\n":
        problems.append("CLAUDE.md must be exactly @AGENTS.md")
    return problems


@pytest.fixture(scope="module")
def cdp_tools(node_modules: Path) -> set[str]:
    tools_dir = node_modules / "chrome-devtools-mcp" / "build" / "src" / "tools"
    names: set[str] = set()
    for path in tools_dir.rglob("*.js"):
        names.update(re.findall(r"name: '([a-z_0-9]+)'", path.read_text(encoding="utf-8")))
    assert {"evaluate_script", "list_pages", "take_screenshot"} <= names
    return names


def _texts(kit: Kit) -> dict[str, str]:
    return {path: data.decode("utf-8") for path, data in kit.files.items()}


def _known_codes() -> set[str]:
    return set(diagnostic_codes() or ())


def _known_components() -> set[str]:
    from pix3tools.scene import COMPONENTS

    return set(COMPONENTS)


def _known_types() -> set[str]:
    found = node_types()
    assert found is not None, "the scene model's node types are part of this build"
    return set(found)


@pytest.mark.node
def test_the_kit_of_this_build_names_only_what_exists(cdp_tools: set[str]) -> None:
    problems = drift(
        _texts(load_kit()), commands=COMMANDS, cdp_tools=cdp_tools, codes=_known_codes(), types=_known_types()
    )
    assert problems == []


@pytest.mark.node
def test_the_kit_of_a_build_with_every_command_names_only_what_exists(cdp_tools: set[str]) -> None:
    kit = load_kit(commands=set(ORDER))
    problems = drift(_texts(kit), commands=ORDER, cdp_tools=cdp_tools, codes=_known_codes(), types=_known_types())
    assert problems == []
    agents = kit.files["AGENTS.md"].decode()
    assert "pix3 editor" in agents and "pix3 check" in kit.files[".claude/skills/pix3-verify/SKILL.md"].decode()


def test_a_kit_without_a_command_does_not_mention_it() -> None:
    kit = _texts(load_kit(commands={"gap"}))
    everything = "\n".join(kit.values())
    assert "pix3 editor" not in everything and "pix3 check" not in everything
    assert "pix3 gap" in everything


@pytest.mark.node
@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("run `pix3 serve` now", "names `pix3 serve`"),
        ("run `pix3 gap --frobnicate`", "`pix3 gap --frobnicate` is not in its usage"),
        ("call `pix3_teleport`", "bridge tool pix3_teleport does not exist"),
        ("call `open_the_pod_bay`", "`open_the_pod_bay` is no chrome-devtools-mcp tool"),
        ("fix E_FROBNICATED first", "diagnostic code E_FROBNICATED"),
        ("add a `Spline2D`", "node type Spline2D does not exist"),
        ("then `npm run deploy`", "`npm run deploy` is no starter script"),
        ("attach `core:Teleport`", "core:Teleport is no built-in component"),
    ],
)
def test_the_checker_catches_invented_names(cdp_tools: set[str], line: str, problem: str) -> None:
    files = _texts(load_kit())
    files[".claude/skills/pix3-nodes/reference.md"] += line + "\n"
    problems = drift(files, commands=COMMANDS, cdp_tools=cdp_tools, codes=_known_codes(), types=_known_types())
    assert any(problem in p for p in problems), problems


def test_every_kit_file_is_expanded_and_versioned() -> None:
    kit = load_kit()
    assert set(kit.files) >= REQUIRED
    assert kit.files["CLAUDE.md"] == b"@AGENTS.md\n"
    for path, data in kit.files.items():
        text = data.decode()
        assert "{{" not in text, path
        if path != "CLAUDE.md":
            assert CLI_VERSION in text, path
    assert kit.files["AGENTS.md"].decode().startswith(f"<!-- Pix3 agent kit {CLI_VERSION}")


def _expand(name: str) -> list[str]:
    """``sliceBorderLeft/Right`` → ``sliceBorderLeft``, ``sliceBorderRight``."""
    first, *rest = name.split("/")
    last_word = re.search(r"[A-Z][a-z]*$", first)
    prefix = first[: last_word.start()] if last_word else first
    return [first, *(prefix + suffix for suffix in rest)]


_CELL_SPLIT = re.compile(r"\|(?=(?:[^`]*`[^`]*`)*[^`]*$)")  # a `|` outside backticks


def _table_rows(text: str) -> list[tuple[list[str], list[str]]]:
    """(node types, property keys) of every table row: types in the next-to-last cell."""
    rows: list[tuple[list[str], list[str]]] = []
    for line in text.splitlines():
        if not line.startswith("| ") or "---" in line:
            continue
        cells = [c.strip() for c in _CELL_SPLIT.split(line.strip().strip("|"))]
        if len(cells) < 2:
            continue
        types = re.findall(r"`([A-Za-z0-9]+)`", cells[-2])
        keys: list[str] = []
        for item in re.split(r",\s*(?![^()]*\))", cells[-1]):
            found = re.match(r"\s*`([A-Za-z0-9/]+)`", item)
            if found:
                keys.extend(_expand(found.group(1)))
        rows.append((types, keys))
    return rows


def test_node_property_tables_match_the_disk_format() -> None:
    from pix3tools.scene import classify_key, type_format

    kit = load_kit()
    checked = 0
    problems = []
    for path in (".claude/skills/pix3-nodes/SKILL.md", ".claude/skills/pix3-nodes/reference.md"):
        for types, keys in _table_rows(kit.files[path].decode()):
            for node_type in types:
                if node_type not in _known_types():
                    continue
                fmt = type_format(node_type)
                for key in keys:
                    checked += 1
                    if classify_key(fmt, key) not in ("schema", "extra"):
                        problems.append(f"{path}: {node_type}.{key} is {classify_key(fmt, key)}")
    assert problems == []
    assert checked > 150
    # The checker sees a property a type does not take.
    assert [k for t, k in _table_rows("| `Checkbox2D` | `value` |\n") if t == ["Checkbox2D"]] == [["value"]]
    assert classify_key(type_format("Checkbox2D"), "value") == "unknown"


def test_the_bot_policy_types_are_global() -> None:
    """Global ``declare interface`` types, no import or export (a policy imports nothing)."""
    text = load_kit().files["design/tests/bots/pix3-test-bot.d.ts"].decode()
    declared = re.findall(r"^declare interface (\w+) \{", text, re.M)
    assert declared == ["BotNodeView", "Pix3TestBot", "BotPolicy"]
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("//", "/**", "*")))
    assert not re.search(r"^\s*(?:import|export)\b", code, re.M)
    assert "NEXT tick" in text and "satisfies BotPolicy" in text
