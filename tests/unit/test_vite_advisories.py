"""Vite's dev-server advisories (`pix3tools/core/viteadvisories.py`): which an installed Vite has,
and the version named to fix them; read from a real installed Vite (the pinned 6.2.0 and the
current one in tests/node)."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from pix3tools.core.nodemodules import installed_version
from pix3tools.core.viteadvisories import ADVISORIES, TABLE_DATE, advisories_for, parse_version


@pytest.mark.parametrize(
    ("version", "upgrade_to", "some"),
    [
        ("6.2.0", "6.4.5", {"CVE-2025-30208", "CVE-2026-39363", "CVE-2026-112946"}),
        ("6.4.4", "6.4.5", {"CVE-2026-118662"}),  # the regression 6.4.4 brought, alone
        ("6.4.2", "6.4.5", {"CVE-2026-112946"}),  # 6.4.4 fixes it and regresses: named past it
        ("6.3.0", "6.4.5", {"CVE-2025-46565", "CVE-2026-39365"}),
        ("7.3.6", "7.3.7", {"CVE-2026-112946"}),
        ("8.0.3", "8.1.6", {"CVE-2026-39364", "CVE-2026-112946"}),
        ("8.2.3", "8.2.4", {"CVE-2026-112946"}),
        ("5.4.10", "6.4.5", {"CVE-2025-30208", "CVE-2026-112946"}),  # no 5.x fix for the last
        ("v7.0.0-beta.2", "7.3.7", {"CVE-2025-58751"}),
    ],
)
def test_an_affected_vite_is_named_with_the_version_that_fixes_it(
    version: str, upgrade_to: str, some: set[str]
) -> None:
    found = advisories_for(version)
    assert found is not None and found.upgrade_to == upgrade_to
    assert some <= set(found.cves), found.cves
    assert f"Vite {version.strip()}" in found.message and f"vite@{upgrade_to}" in found.fix
    assert advisories_for(upgrade_to) is None  # the version named has none left


@pytest.mark.parametrize("version", ["6.4.5", "7.3.7", "8.1.6", "8.2.4", "8.3.3", "8.4.0", "not a version", ""])
def test_a_fixed_or_unreadable_vite_has_none(version: str) -> None:
    assert advisories_for(version) is None


def test_the_windows_advisories_only_on_windows() -> None:
    """CVE-2026-53571 (`::$DATA`, 8.3 short names) and CVE-2025-62522 (`\\`) need a Windows host:
    not named on Linux or macOS (the front door refuses those spellings anyway)."""
    on_linux, on_windows = advisories_for("8.0.15"), advisories_for("8.0.15", windows=True)
    assert on_linux is not None and on_windows is not None
    assert "CVE-2026-53571" in on_windows.cves and "CVE-2026-53571" not in on_linux.cves
    found = advisories_for("7.3.4", windows=True)
    assert found is not None and found.upgrade_to == "7.3.7"


def test_the_table_is_dated_and_well_formed() -> None:
    assert datetime.date.fromisoformat(TABLE_DATE) <= datetime.datetime.now(datetime.UTC).date()
    for advisory in ADVISORIES:
        assert advisory.cve.startswith("CVE-") and advisory.fixed
        versions = [parse_version(fix) for fix in advisory.fixed]
        lines = {version[:2] for version in versions if version is not None}
        assert len(lines) == len(advisory.fixed), advisory  # each parses, one fix per line


@pytest.mark.node
def test_the_installed_vite_is_read(tmp_path: Path, node_modules: Path) -> None:
    """A project linking the pinned vulnerable Vite is warned about; the current one is not."""
    old = tmp_path / "old"
    (old / "node_modules").mkdir(parents=True)
    (old / "node_modules" / "vite").symlink_to(node_modules / "vite-6.2.0")
    version = installed_version(old, "vite")
    assert version == "6.2.0"
    found = advisories_for(version)
    assert found is not None and found.upgrade_to == "6.4.5"
    current = installed_version(node_modules.parent, "vite")
    assert current is not None and advisories_for(current) is None, current
