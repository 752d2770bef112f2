"""A project as kit 1.x left it, for the `pix3 kit --migrate` tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

OLD = {
    "AGENTS.md": "# Pix3 (kit 1.6.2)\nUse `pix3 mcp` for the live channel.\n",
    "CLAUDE.md": "@AGENTS.md\n",
    ".claude/skills/pix3-verify/SKILL.md": "---\nname: pix3-verify\n---\nCall `read_errors` through pix3 mcp.\n",
    ".claude/skills/pix3-live/SKILL.md": "---\nname: pix3-live\n---\nThe live channel.\n",
    ".claude/skills/pix3-recipes/notes.md": "Recipes of 1.6.2\n",
}
PROJECT = """version: 1.0.0
projectType: 2d
metadata:
  projectName: Old Game
  projectId: 1234
  pix3Hybrid:
    cloudProjectId: cloud-9
  agentKit:
    version: 1.6.2
    files:
      - AGENTS.md
"""
RETIRED = {"command": "npx", "args": ["-y", "@pix3/cli@1.6.2", "mcp", "--workspace"]}


def old_kit_project(root: Path) -> Path:
    """A 1.x-shaped project at ``root``: kit 1.6.2 files, its manifest and the retired MCP server."""
    root.mkdir()
    (root / "pix3project.yaml").write_text(PROJECT)
    (root / "package.json").write_text(json.dumps({"devDependencies": {"@pix3/vite-plugin": "2.0.0"}}))
    for path, text in OLD.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    files = {p: hashlib.sha256(t.encode()).hexdigest() for p, t in OLD.items()}
    (root / ".pix3").mkdir()
    (root / ".pix3/kit-manifest.json").write_text(json.dumps({"format": 1, "version": "1.6.2", "files": files}))
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"pix3": RETIRED}}, indent=2))
    return root
