"""The Python lock (requirements.lock at the repository root): what it pins, and whether it is
still the lock of pyproject.toml's dependency lists.

The lock is written by ``just lock`` (uv's ``pip compile``, universal, with hashes) and installed
by ``just setup`` with pip's ``--require-hashes --no-deps``. uv writes no trace of its inputs, so
``just lock`` ends by stamping the lock with a digest of the lists it was made from
(``python -m tests.support.lockfile stamp``); tests/unit/test_lock.py recomputes it, so a
pyproject change without a new lock fails the suite instead of installing a set nobody resolved.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOCK = REPO / "requirements.lock"
PYPROJECT = REPO / "pyproject.toml"

# The extras `just setup` installs (pyproject's [project.optional-dependencies]).
LOCKED_EXTRAS = ("test",)

STAMP_PREFIX = "# pyproject-dependencies-sha256: "

# `name==version` at the start of a line, an optional `; marker`, then ` \` before the hashes.
_PIN = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)\s*(?:;\s*(?P<marker>[^\\]+?))?\s*\\?$"
)


@dataclass(frozen=True)
class Pin:
    name: str  # normalised (PEP 503)
    version: str
    marker: str | None
    hashes: tuple[str, ...]


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(pyproject_text: str) -> list[str]:
    """pyproject's runtime dependencies, then each locked extra's, as written."""
    project = tomllib.loads(pyproject_text)["project"]
    found = list(project["dependencies"])
    for extra in LOCKED_EXTRAS:
        found += project["optional-dependencies"][extra]
    return found


def digest(pyproject_text: str) -> str:
    """SHA-256 of the dependency lists the lock is made from (order and spelling as written)."""
    return hashlib.sha256(json.dumps(declared(pyproject_text)).encode()).hexdigest()


def pins(lock_text: str) -> list[Pin]:
    found: list[Pin] = []
    lines = lock_text.splitlines()
    for i, line in enumerate(lines):
        match = _PIN.match(line)
        if not match:
            continue
        hashes: list[str] = []
        for follow in lines[i + 1 :]:
            follow = follow.strip()
            if not follow.startswith("--hash="):
                break
            hashes.append(follow.removeprefix("--hash=").rstrip(" \\"))
        found.append(Pin(normalise(match["name"]), match["version"], match["marker"], tuple(hashes)))
    return found


def stamp_of(lock_text: str) -> str | None:
    for line in lock_text.splitlines():
        if line.startswith(STAMP_PREFIX):
            return line.removeprefix(STAMP_PREFIX).strip()
    return None


def stamp(lock: Path, pyproject: Path) -> None:
    """Write (or replace) the digest line at the top of the lock."""
    text = lock.read_text()
    body = [line for line in text.splitlines() if not line.startswith(STAMP_PREFIX)]
    lock.write_text("\n".join([STAMP_PREFIX + digest(pyproject.read_text()), *body]) + "\n")


def problems(pyproject_text: str, lock_text: str) -> list[str]:
    """What makes the lock not the lock of this pyproject: a stale stamp, a declared dependency it
    lacks, a pin outside the declared range, a pin without hashes."""
    from packaging.requirements import Requirement  # a test dependency (pytest's); the stamp needs none

    found: list[str] = []
    if stamp_of(lock_text) != digest(pyproject_text):
        found.append("pyproject.toml's dependency lists changed since requirements.lock was written: run `just lock`")
    locked = pins(lock_text)
    for line in declared(pyproject_text):
        wanted = Requirement(line)
        name = normalise(wanted.name)
        candidates = [pin for pin in locked if pin.name == name]
        if not candidates:
            found.append(f"requirements.lock lacks {wanted.name} (pyproject.toml: {line!r}): run `just lock`")
            continue
        for pin in candidates:
            if not wanted.specifier.contains(pin.version, prereleases=True):
                found.append(f"requirements.lock pins {pin.name}=={pin.version}, outside {line!r}: run `just lock`")
    found += [f"requirements.lock pins {pin.name}=={pin.version} without a hash" for pin in locked if not pin.hashes]
    return found


def main(argv: list[str]) -> int:
    if argv != ["stamp"]:
        print("usage: python -m tests.support.lockfile stamp", file=sys.stderr)
        return 2
    stamp(LOCK, PYPROJECT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
