"""The quiet file tests for typed paths (pix3tools.core.pathtest; docs/cli.md, "Entry rules"): a
path the system cannot look up is a path that is not there."""

from __future__ import annotations

from pathlib import Path

import pytest

from pix3tools.core import pathtest


@pytest.mark.parametrize(
    "typed",
    ["a" * 5000, "/".join(["a" * 200] * 30), "loop/x.pix3scene", "loop", "with\0nul", "missing.pix3scene"],
    ids=["5000-char name", "6000-char path", "through a loop", "a loop", "a NUL", "missing"],
)
def test_a_typed_path_that_cannot_be_looked_up_is_simply_not_there(tmp_path: Path, typed: str) -> None:
    (tmp_path / "loop").symlink_to("loop")
    path = tmp_path / typed
    assert not pathtest.exists(path)
    assert not pathtest.is_file(path)
    assert not pathtest.is_dir(path)


def test_the_quiet_tests_still_see_what_is_there(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    assert pathtest.is_file(tmp_path / "f") and pathtest.exists(tmp_path / "f")
    assert pathtest.is_dir(tmp_path) and not pathtest.is_dir(tmp_path / "f")
