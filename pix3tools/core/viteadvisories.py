"""Vite's published dev-server advisories, and which of them an installed Vite has. Standard
library only: `pix3 check` (a warning) and `pix3 editor` (a line on stderr) ask it.

The dev server's front door stops each of these bypasses for requests made through its port
(docs/devserver.md, "What the front door refuses"), but Vite's own port answers anyone on the
machine, and a project may be served by Vite without us (`npx vite`, a CI preview): an old Vite
is worth upgrading. The table is ours, read from the advisories as of ``TABLE_DATE``; renew it
when Vite publishes another (docs/devserver.md, "Vite's advisories").
"""

from __future__ import annotations

import re
from typing import NamedTuple  # not dataclasses: `pix3 editor` imports this, and dataclasses loads inspect and ast

TABLE_DATE = "2026-12-07"  # the day the table below was last compared with Vite's advisories

Version = tuple[int, int, int, int]  # major, minor, patch, 1 for a release (0 for a pre-release)


class Advisory(NamedTuple):
    """One advisory: ``fixed`` is the first fixed version of each release line that got a fix
    (a line is a major.minor); ``introduced`` the first affected version (None: every older one);
    ``windows`` when only Windows hosts are affected."""

    cve: str
    fixed: tuple[str, ...]
    introduced: str | None = None
    windows: bool = False


ADVISORIES: tuple[Advisory, ...] = (
    Advisory("CVE-2025-30208", ("4.5.10", "5.4.15", "6.0.12", "6.1.2", "6.2.3")),
    Advisory("CVE-2025-31125", ("4.5.11", "5.4.16", "6.0.13", "6.1.3", "6.2.4")),
    Advisory("CVE-2025-31486", ("4.5.12", "5.4.17", "6.0.14", "6.1.4", "6.2.5")),
    Advisory("CVE-2025-32395", ("4.5.13", "5.4.18", "6.0.15", "6.1.5", "6.2.6")),
    Advisory("CVE-2025-46565", ("4.5.14", "5.4.19", "6.1.6", "6.2.7", "6.3.4")),
    Advisory("CVE-2025-58751", ("5.4.20", "6.3.6", "7.0.7", "7.1.5")),
    Advisory("CVE-2025-58752", ("5.4.20", "6.3.6", "7.0.7", "7.1.5")),
    Advisory("CVE-2025-62522", ("5.4.21", "6.4.1", "7.1.11"), windows=True),
    Advisory("CVE-2026-39363", ("6.4.2", "7.3.2", "8.0.5"), introduced="6.0.0"),
    Advisory("CVE-2026-39364", ("7.3.2", "8.0.5"), introduced="7.0.0"),
    Advisory("CVE-2026-39365", ("6.4.2", "7.3.2", "8.0.5"), introduced="6.0.0"),
    Advisory("CVE-2026-53571", ("6.4.3", "7.3.5", "8.0.16"), windows=True),
    Advisory("CVE-2026-112946", ("6.4.4", "7.3.7", "8.1.6", "8.2.4", "8.3.3")),
    Advisory("CVE-2026-118662", ("6.4.5",), introduced="6.4.4"),  # a 6.4.4 regression of the `?raw` check
)

_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)(-)?")


def parse_version(text: str) -> Version | None:
    """``major.minor.patch`` with an optional pre-release or build suffix, else None."""
    found = _VERSION.match(text.strip())
    if found is None:
        return None
    major, minor, patch, pre = found.groups()
    return (int(major), int(minor), int(patch), 0 if pre else 1)


def _fix_for(advisory: Advisory, version: Version) -> str | None:
    """The version that fixes ``advisory`` for ``version`` (its own line's fix, else the first fix
    of a later line), or None when ``version`` is not affected."""
    if advisory.introduced is not None and version < _parsed(advisory.introduced):
        return None
    fixes = sorted((_parsed(text), text) for text in advisory.fixed)
    same_line = [(fix, text) for fix, text in fixes if fix[:2] == version[:2]]
    if same_line:
        return same_line[0][1] if version < same_line[0][0] else None
    same_major = [(fix, text) for fix, text in fixes if fix[0] == version[0]]
    if same_major:  # a minor released after its major's last fixed line shipped with the fix
        return next((text for fix, text in same_major if fix[1] > version[1]), None)
    return next((text for fix, text in fixes if fix > version), None)  # an older major: the next fix


def _parsed(text: str) -> Version:
    version = parse_version(text)
    assert version is not None, text  # the table's own versions
    return version


class Finding(NamedTuple):
    """What an installed Vite has: the advisories (CVE ids, table order) and the version that
    fixes them all (the lowest one that is not itself affected)."""

    version: str
    cves: tuple[str, ...]
    upgrade_to: str
    windows_only: bool

    @property
    def message(self) -> str:
        where = " (Windows hosts only)" if self.windows_only else ""
        return (
            f"Vite {self.version} has known dev-server advisories{where} ({', '.join(self.cves)}; "
            f"pix3's table of {TABLE_DATE}): pix3's dev server refuses them on its own port, Vite's own "
            f"port and a Vite started without pix3 answer them"
        )

    @property
    def fix(self) -> str:
        return f"npm install vite@{self.upgrade_to} (or later)"


def advisories_for(text: str, *, windows: bool = False) -> Finding | None:
    """The advisories that apply to Vite ``text`` on this kind of host (the Windows-only ones
    only when ``windows``), or None: none, or a version that does not parse."""
    version = parse_version(text)
    if version is None:
        return None
    found = [(a.cve, fix) for a in ADVISORIES if (windows or not a.windows) and (fix := _fix_for(a, version))]
    if not found:
        return None
    target = max((_parsed(fix), fix) for _, fix in found)[1]
    for _ in ADVISORIES:  # a fixed version may bring a regression of its own (6.4.4): go past it
        again = [fix for a in ADVISORIES if (windows or not a.windows) and (fix := _fix_for(a, _parsed(target)))]
        if not again:
            break
        target = max((_parsed(fix), fix) for fix in again)[1]
    every = [a for a in ADVISORIES if a.cve in {cve for cve, _ in found}]
    return Finding(text.strip(), tuple(a.cve for a in every), target, all(a.windows for a in every))
