"""The kit's template language: conditions on this build's commands and facts, generated blocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from pix3tools.kit._source import KitSourceError, expand, load_kit, project_path


def test_blocks_follow_the_commands_of_the_build() -> None:
    text = "a\n{{if commands: gap kit}}\nb {{version}}\n{{if commands: editor}}\nc\n{{end}}\n{{end}}\nd {{gap-kinds}}"
    assert expand(text, source="t", version="9", commands={"gap", "kit"}) == "a\nb 9\nd capability|tool|node|doc|other"
    assert expand(text, source="t", version="9", commands={"gap", "kit", "editor"}).split("\n")[2] == "c"
    assert expand(text, source="t", version="9", commands={"gap"}) == "a\nd capability|tool|node|doc|other"


def test_generated_usage_only_for_dispatched_commands() -> None:
    assert expand("{{generated: usage gap}}", source="t", version="1", commands=set()) == ""
    shown = expand("{{generated: usage gap}}", source="t", version="1", commands={"gap"})
    assert shown.startswith("```text\nUsage: pix3 gap") and shown.endswith("```")


@pytest.mark.parametrize(
    "text",
    ["{{if commands: gap}}\nx", "x\n{{end}}", "{{if moods: happy}}\nx\n{{end}}", "x {{unknown}}"],
)
def test_broken_templates_are_refused(text: str) -> None:
    with pytest.raises((KitSourceError, ValueError)):
        expand(text, source="t", version="1", commands={"gap"})


def test_skills_land_under_claude() -> None:
    assert project_path("skills/pix3-nodes/SKILL.md") == ".claude/skills/pix3-nodes/SKILL.md"
    assert project_path("AGENTS.md") == "AGENTS.md"


def test_a_package_without_its_kit_says_so(tmp_path: Path) -> None:
    with pytest.raises(KitSourceError, match="installed without its kit"):
        load_kit(data=tmp_path / "missing")
