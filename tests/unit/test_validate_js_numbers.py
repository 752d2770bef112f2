"""validate prints numbers as JavaScript's String(n) does, like tree and character-compile."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.validate import diags, make, validate


@pytest.mark.parametrize(
    ("written", "shown"),
    [("1.5e-5", "0.000015"), ("1.0e-7", "1e-7"), ("1152921504606846976.0", "1152921504606847000")],
)
def test_scene_version_number_is_shown_as_js_prints_it(tmp_path: Path, written: str, shown: str) -> None:
    root = make(tmp_path, {"scenes/a.pix3scene": f"version: {written}\nroot: []\n"})
    [legacy] = diags(validate(root), "W_LEGACY_VERSION")
    assert legacy["message"].startswith(f"Scene format version {shown} is not the current")
