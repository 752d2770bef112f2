"""Live edits while a game plays (live_edits.test.mjs, node's own runner): the game's
filesChanged hook and the editor page's reply to a sync (docs/game-page.md, "Live edits")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.node import run_node_tests

pytestmark = pytest.mark.node


def test_live_edits_under_node_test() -> None:
    run_node_tests(Path(__file__).with_name("live_edits.test.mjs"), passes=4)
