"""The Python lock: requirements.lock is the lock of pyproject.toml's lists, and `just setup`
installed exactly it (docs/architecture.md, "Rules the code keeps")."""

from __future__ import annotations

from importlib import metadata

from packaging.markers import Marker
from packaging.requirements import Requirement

from tests.support.lockfile import LOCK, PYPROJECT, declared, normalise, pins, problems


def test_the_lock_is_the_lock_of_pyproject() -> None:
    assert problems(PYPROJECT.read_text(), LOCK.read_text()) == []


def test_a_changed_list_makes_the_lock_stale() -> None:
    pyproject = PYPROJECT.read_text().replace('"trio>=0.27",', '"trio>=0.27",\n  "left-pad-py>=1",', 1)
    found = problems(pyproject, LOCK.read_text())
    assert any("changed since requirements.lock was written" in line for line in found), found
    assert any("lacks left-pad-py" in line for line in found), found


def test_a_floor_above_the_pin_is_found() -> None:
    pyproject = PYPROJECT.read_text().replace('"trio>=0.27",', '"trio>=999",', 1)
    assert any("outside 'trio>=999'" in line for line in problems(pyproject, LOCK.read_text()))


def test_every_dependency_is_pinned_transitive_ones_too() -> None:
    # What the installed distributions need, followed from pyproject's lists, is all in the lock.
    locked = {pin.name for pin in pins(LOCK.read_text())}
    needed = [Requirement(line) for line in declared(PYPROJECT.read_text())]
    seen: set[str] = set()
    while needed:
        wanted = needed.pop()
        name = normalise(wanted.name)
        if name in seen or (wanted.marker and not wanted.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        needed += [Requirement(line) for line in metadata.requires(name) or []]
    assert seen <= locked, sorted(seen - locked)


def test_setup_installed_exactly_the_lock() -> None:
    # `just setup` (which `just test` runs first) installs requirements.lock with --require-hashes
    # --no-deps; anything else installed here means the suite does not run on the locked set.
    wrong = []
    for pin in pins(LOCK.read_text()):
        if pin.marker and not Marker(pin.marker).evaluate():
            continue
        try:
            installed = metadata.version(pin.name)
        except metadata.PackageNotFoundError:
            installed = "nothing"
        if installed != pin.version:
            wrong.append(f"{pin.name}: locked {pin.version}, installed {installed}")
    assert wrong == [], "run `just setup`: " + "; ".join(wrong)
