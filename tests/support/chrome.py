"""The Chrome a test starts: the quiet flags, and `PIX3_CHROME` wrapper scripts (fake or real)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.pix3 import REPO

# Flags every test Chrome gets: the network is closed here, and Chromium otherwise keeps
# retrying connections it cannot make.
QUIET_CHROME_FLAGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def fake_chrome_wrapper(folder: Path, *extra: str, name: str = "fake-chrome") -> Path:
    """A PIX3_CHROME script that records its argv (one per line) and execs the fake Chrome."""
    script = folder / name
    argv_file = folder / f"{name}.argv"
    script.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > {argv_file}\n'
        f'cd {REPO} && exec {sys.executable} -m tests.fakechrome {" ".join(extra)} "$@"\n'
    )
    script.chmod(0o755)
    return script


def real_chrome_wrapper(folder: Path, chromium: str, *flags: str) -> Path:
    """A PIX3_CHROME script that execs Chromium with the quiet test flags (fds 3/4 pass through)."""
    script = folder / "chromium-quiet"
    script.write_text(f'#!/bin/sh\nexec {chromium} {" ".join(flags)} "$@"\n')
    script.chmod(0o755)
    return script


def chrome_wrapper(folder: Path, chromium: str) -> tuple[Path, Path]:
    """A PIX3_CHROME script that writes its argv (one per line) and execs Chromium (fds 3/4 pass)."""
    script = folder / "chrome.sh"
    argv_file = folder / "chrome-argv.txt"
    flags = " ".join(QUIET_CHROME_FLAGS)
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{argv_file}"\nexec "{chromium}" {flags} "$@"\n')
    script.chmod(0o755)
    return script, argv_file
