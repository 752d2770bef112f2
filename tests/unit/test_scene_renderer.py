"""The one 2D renderer's placement (scene_renderer.test.mjs, node's own runner): the editor's scene
view and the demo game draw with it, and `pix3_scene`'s `screen` comes from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.node import run_node_tests

pytestmark = pytest.mark.node


def test_scene_renderer_under_node_test() -> None:
    run_node_tests(Path(__file__).with_name("scene_renderer.test.mjs"), passes=7)
