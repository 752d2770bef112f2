"""The suite's own pytest setup (pyproject's [tool.pytest.ini_options] and tests/conftest.py).

A failing test must say which test failed and why. With ``filterwarnings = error`` a warning raised
inside a plugin's hook used to crash pytest (INTERNALERROR, exit 3) instead: Hypothesis's plugin
imports libcst after a property test fails, and that import warns.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

REPO = Path(__file__).resolve().parents[2]

FAILING_PROPERTY = """
from hypothesis import given, strategies as st


@given(st.integers())
def test_below_a_thousand(n):
    assert n < 1000
"""


def _pytest_with_our_setup(folder: Path) -> subprocess.CompletedProcess[str]:
    """Run pytest on ``folder`` with pyproject's options and tests/conftest.py loaded as a plugin."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.conftest",
            "-c",
            str(REPO / "pyproject.toml"),
            "--rootdir",
            str(folder),
            str(folder),
        ],
        cwd=folder,  # Hypothesis writes its example database and patches under the working directory
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_failing_property_test_reports_its_example(tmp_path: Path) -> None:
    (tmp_path / "test_property.py").write_text(FAILING_PROPERTY)
    run = _pytest_with_our_setup(tmp_path)
    out = run.stdout + run.stderr
    assert "INTERNALERROR" not in out, out
    assert run.returncode == 1, out
    assert "FAILED test_property.py::test_below_a_thousand" in out, out
    # The example itself, shrunk, as the call that fails: whatever words Hypothesis puts before it
    # ("Falsifying example:" until 6.164, "Failing test case:" since), it writes the call.
    assert re.search(r"test_below_a_thousand\([^)]*\bn=1000\b", out), out
    assert "@reproduce_failure(" in out, out  # print_blob: a failure seen once can be replayed


def test_property_tests_have_no_deadline() -> None:
    # Loaded by tests/conftest.py for every test: results are checked, never speed.
    loaded = settings.default
    assert loaded is not None and loaded.deadline is None
