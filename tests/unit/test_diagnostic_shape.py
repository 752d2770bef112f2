"""One diagnostic type, two key orders: validate's and check's own (docs/check.md, "The report")."""

from __future__ import annotations

from pix3tools._diagnostic import Diagnostic


def test_validate_writes_message_right_after_file() -> None:
    d = Diagnostic("E_SHAPE", "scenes/a.pix3scene", "bad", node_id="n", path=("root", 0), line=3, fix="f")
    assert list(d.to_json()) == ["severity", "code", "file", "message", "nodeId", "path", "line", "fix"]


def test_check_writes_where_before_what() -> None:
    typed = Diagnostic("E_TYPE", "src/a.ts", "TS2339: nope", line=4)
    assert list(typed.to_json(located_first=True)) == ["severity", "code", "file", "line", "message"]
    kit = Diagnostic("W_KIT_OUTDATED", "pix3project.yaml", "old", path=("metadata", "agentKit", "version"), fix="x")
    assert list(kit.to_json(located_first=True)) == ["severity", "code", "file", "path", "message", "fix"]
    assert kit.to_json(located_first=True)["path"] == "metadata.agentKit.version"


def test_unsynced_keeps_the_code_first() -> None:
    d = Diagnostic("E_EDITOR_UNSYNCED", "pix3project.yaml", "did not flush")
    assert list(d.to_json(located_first=True)) == ["code", "severity", "file", "message"]
    assert list(d.to_json()) == ["code", "severity", "file", "message"]
