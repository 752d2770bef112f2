"""Our fixture projects validate with zero errors; the scene corpus uses every node type."""

from __future__ import annotations

from pathlib import Path

import pytest

from pix3tools.scene import NODE_TYPES, iter_nodes, parse_yaml
from pix3tools.validate import run_validate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.mark.parametrize("project", ["projects/2d", "projects/3d", "scenes"])
@pytest.mark.parametrize("hydrate", [False, True])
def test_fixture_projects_have_no_errors(project: str, hydrate: bool) -> None:
    report = run_validate(FIXTURES / project, None, hydrate=hydrate)
    assert [d.to_json() for d in report.diagnostics if d.severity == "error"] == []
    assert report.files
    assert report.level2["state"] == ("skipped" if hydrate else "disabled")


def test_the_corpus_uses_every_node_type() -> None:
    used: set[str] = set()
    for scene in (FIXTURES / "scenes").rglob("*.pix3scene"):
        used.update(str(n.node.get("type")) for n in iter_nodes(parse_yaml(scene.read_text()).data))
    assert set(NODE_TYPES) <= used, sorted(set(NODE_TYPES) - used)
