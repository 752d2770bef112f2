"""`pix3 kit --migrate`: a 1.x-shaped project to the 2.x kit (docs/kit.md, "Migrating a 1.x kit")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from pix3tools.core import CLI_VERSION
from pix3tools.core.usage import OVERVIEW_BLOCKS
from pix3tools.kit import is_retired_server, load_kit, migrate
from pix3tools.kit._migrate import markers_in
from tests.support.kit import OLD, RETIRED
from tests.support.pix3 import run_pix3


def test_usage_kit_block_shape() -> None:
    assert re.search(r"pix3 kit \[--update\]\s+.*\n\s+\[--migrate\]", OVERVIEW_BLOCKS["kit"])


@pytest.mark.parametrize(
    ("command", "retired"),
    [
        ("npx -y @pix3/cli@1.6.2 mcp --workspace", True),
        ("node /home/me/pix3/packages/cli/src/index.ts mcp --workspace", True),
        ("pix3 mcp", True),
        ("npx -y chrome-devtools-mcp@1.10.1 --browserUrl=http://127.0.0.1:9333", False),
        ("npx some-mcp mcp", False),
        ("npx -y @pix3/cli@2.0.0 check", False),
    ],
)
def test_retired_server(command: str, retired: bool) -> None:
    assert is_retired_server(command.split()) is retired


@pytest.mark.node  # old: three's types from the test clients
def test_untouched_1x_kit(old: Path) -> None:
    out = migrate(old)
    assert not (old / ".mcp.json").exists()
    assert f"Pix3 kit migration 1.6.2 → {CLI_VERSION} in {old}" in out
    assert "mcpServers.pix3 (npx -y @pix3/cli@1.6.2 mcp --workspace)" in out
    assert "cloudProjectId" in out
    assert "removed   .claude/skills/pix3-live/SKILL.md" in out
    assert "removed   .claude/skills/pix3-recipes/notes.md" in out
    assert not (old / ".claude/skills/pix3-live").exists()
    kit = load_kit()
    assert (old / "AGENTS.md").read_bytes() == kit.files["AGENTS.md"]
    assert (old / ".claude/skills/pix3-verify/SKILL.md").read_bytes() == kit.files[
        ".claude/skills/pix3-verify/SKILL.md"
    ]
    assert (old / ".claude/skills/pix3-editor/SKILL.md").is_file()
    meta = YAML(typ="safe", pure=True).load((old / "pix3project.yaml").read_text())["metadata"]
    assert "pix3Hybrid" not in meta and meta["projectId"] == 1234
    assert meta["agentKit"]["version"] == CLI_VERSION and ".mcp.json" not in meta["agentKit"]["files"]
    record = json.loads((old / ".pix3/kit-manifest.json").read_text())
    assert record["version"] == CLI_VERSION
    assert not any("pix3-live" in p for p in record["files"])
    assert "npx pix3 agent-setup" in out and "~/.codex/config.toml" in out
    again = migrate(old)
    assert "nothing of the 1.x kit left to remove" in again
    assert "wrote" not in again and "updated" not in again


@pytest.mark.node  # old: three's types from the test clients
def test_edits_are_kept_and_staged(old: Path) -> None:
    verify = old / ".claude/skills/pix3-verify/SKILL.md"
    verify.write_text(OLD[".claude/skills/pix3-verify/SKILL.md"] + "my edit\n")
    notes = old / ".claude/skills/pix3-recipes/notes.md"
    notes.write_text("my recipes\n")
    (old / ".mcp.json").write_text(json.dumps({"mcpServers": {"pix3": RETIRED, "github": {"command": "gh"}}}))
    out = migrate(old)
    assert list(json.loads((old / ".mcp.json").read_text())["mcpServers"]) == ["github"]
    assert verify.read_text().endswith("my edit\n")
    staged = old / ".pix3/kit-migrate/.claude/skills/pix3-verify/SKILL.md"
    assert staged.read_bytes() == load_kit().files[".claude/skills/pix3-verify/SKILL.md"]
    assert "STILL 1.x .claude/skills/pix3-verify/SKILL.md: mentions `pix3 mcp`" in out
    assert "KEPT      .claude/skills/pix3-recipes/notes.md" in out
    assert notes.read_text() == "my recipes\n"
    assert "TODO: Merge .claude/skills/pix3-verify/SKILL.md by hand" in out


@pytest.mark.node  # old: three's types from the test clients
def test_edited_1x_agents_is_kept(old: Path) -> None:
    (old / "AGENTS.md").write_text(OLD["AGENTS.md"] + "Our own rule.\n")
    out = migrate(old)
    assert (old / "AGENTS.md").read_text().endswith("Our own rule.\n")
    assert (old / "AGENTS.pix3.md").is_file()
    assert "KEPT      AGENTS.md: your edited copy of the 1.x kit" in out
    assert "TODO: Remove the 1.x kit text from AGENTS.md" in out


def test_the_2x_kit_has_no_1x_markers() -> None:
    for path, data in load_kit().files.items():
        assert markers_in(data.decode()) == [], path


@pytest.mark.node  # old: three's types from the test clients
def test_migrate_through_the_entry(old: Path) -> None:
    done = run_pix3("kit", "--migrate", cwd=old / ".claude")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Pix3 kit migration 1.6.2")
