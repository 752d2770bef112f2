"""Which Chrome binary `pix3 editor` launches (docs/chrome-owner.md, "Finding Chrome").

Pure apart from file-system checks: the environment and the platform are passed in, so a test
can ask for macOS or Windows on Linux.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

# Linux (and any other POSIX): names tried on the PATH, outer loop (the first name wins over
# every later name, whatever the PATH order).
PATH_NAMES = ("google-chrome", "google-chrome-stable", "chromium", "chromium-browser", "chrome")
_MAC_APPS = (
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "{HOME}/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
)
_WIN_ROOTS = ("PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA")


def find_chrome(env: Mapping[str, str], platform: str) -> str | None:
    """The Chrome to launch, or None. ``platform`` is ``sys.platform`` (darwin, win32, linux…).

    ``PIX3_CHROME`` is taken as is (it may be a wrapper that execs Chrome, keeping fds 3/4); a bare
    name (``chromium``) is looked up on the ``PATH``, as a shell would. Whether it can be started
    is :func:`chrome_problem`'s question, asked only when a Chrome is about to be launched.
    """
    explicit = env.get("PIX3_CHROME", "")
    if explicit:
        if os.sep in explicit or (os.altsep and os.altsep in explicit):
            return explicit
        return shutil.which(explicit, path=env.get("PATH", "")) or explicit
    if platform == "darwin":
        home = env.get("HOME", "")
        for pattern in _MAC_APPS:
            if "{HOME}" in pattern and not home:
                continue
            candidate = pattern.replace("{HOME}", home)
            if os.path.exists(candidate):
                return candidate
        return None
    if platform == "win32":
        for root in _WIN_ROOTS:
            base = env.get(root, "")
            if not base:
                continue
            candidate = os.path.join(base, "Google", "Chrome", "Application", "chrome.exe")
            if os.path.exists(candidate):
                return candidate
        return None
    dirs = [d for d in env.get("PATH", "").split(os.pathsep) if d]
    for name in PATH_NAMES:
        for folder in dirs:
            path = Path(folder) / name
            if path.is_file() and os.access(path, os.X_OK):
                return str(path)
    return None


def no_chrome_message(platform: str) -> str:
    """What `pix3 editor` prints (after ``pix3 editor: ``) when :func:`find_chrome` finds nothing."""
    if platform == "darwin":
        hint = "(the usual place is /Applications/Google Chrome.app)."
    elif platform == "win32":
        hint = "(the usual place is %ProgramFiles%\\Google\\Chrome\\Application\\chrome.exe)."
    else:
        hint = "(google-chrome, chromium or chromium-browser on the PATH)."
    return f"No Chrome found. Install Google Chrome (or Chromium), or point PIX3_CHROME at the binary {hint}"


def chrome_problem(binary: str, env: Mapping[str, str]) -> str | None:
    """Why ``binary`` cannot be started as Chrome (a missing or non-executable ``PIX3_CHROME``), or None.

    Only ``PIX3_CHROME`` can name a file that is not there: the search above checks what it returns.
    """
    named = "PIX3_CHROME names" if env.get("PIX3_CHROME") else "The Chrome binary"
    fix = "point PIX3_CHROME at the Chrome binary (or unset it to use the one on the PATH)"
    if os.sep not in binary and not (os.altsep and os.altsep in binary):
        return f"{named} {binary}, which is not on the PATH: {fix}."
    path = Path(binary)
    if not path.exists():
        return f"{named} {binary}, which does not exist: {fix}."
    if path.is_dir():
        return f"{named} {binary}, which is a folder: {fix}."
    if not os.access(path, os.X_OK):
        return f"{named} {binary}, which is not executable: chmod +x it, or {fix}."
    return None
