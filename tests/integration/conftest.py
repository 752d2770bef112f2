"""Fixtures shared by the integration tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.kit import old_kit_project


@pytest.fixture
def old(tmp_path: Path, three_types_home: Path) -> Path:
    """A project as kit 1.x left it (tests/support/kit.py); no tsconfig.json: the migrated kit
    writes the script types, from a private PIX3_HOME."""
    return old_kit_project(tmp_path / "old")
