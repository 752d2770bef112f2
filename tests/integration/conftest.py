"""Fixtures shared by the integration tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.kit import old_kit_project


@pytest.fixture
def old(tmp_path: Path) -> Path:
    """A project as kit 1.x left it (tests/support/kit.py)."""
    return old_kit_project(tmp_path / "old")
