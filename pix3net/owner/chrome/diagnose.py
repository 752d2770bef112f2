"""Why a Chrome launch failed, named for what it is (docs/chrome-owner.md, the owner's step 3).

Pure apart from two looks at the machine (a profile's ``SingletonLock`` and whether the pid it
names is a live Chrome): the owner asks after a launch that did not answer, `pix3 editor` before
it launches at all. No trio here: the editor's cold start imports this before anything heavy.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Mapping, Sequence

# Why a launch failed, from what Chrome said and how it ended. 21 is Chrome's own exit code for
# "the profile is in use" (chrome_result_codes.h, RESULT_CODE_PROFILE_IN_USE): with
# --remote-debugging-pipe it aborts rather than hand the launch to the Chrome holding the lock.
PROFILE_IN_USE_EXIT = 21
_PROFILE_IN_USE_SAID = ("ProcessSingleton", "SingletonLock", "profile appears to be in use")
# Linux Chrome without X11 or Wayland (ozone_platform_x11.cc, ozone_platform_wayland.cc).
_NO_DISPLAY_SAID = ("Missing X server or $DISPLAY", "cannot open display", "Failed to connect to Wayland display")


def profile_holder(profile: str) -> int | None:
    """The pid of a live process on this machine holding ``profile``'s ``SingletonLock``, or None.

    Chrome makes the lock a symlink to ``<hostname>-<pid>`` while it runs the profile.
    """
    try:
        target = os.readlink(os.path.join(profile, "SingletonLock"))
    except OSError:
        return None
    host, _, digits = target.rpartition("-")
    if host != socket.gethostname() or not digits.isdigit() or int(digits) <= 0:
        return None
    pid = int(digits)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # another user's process: alive all the same
    try:  # a lock left by a crash may name a pid now reused by something else
        with open(f"/proc/{pid}/comm", "rb") as handle:  # chrome, chromium, chrome-headless-shell
            if b"chrom" not in handle.read().lower():
                return None
    except OSError:
        pass  # no /proc (macOS): the live pid is all we know
    return pid


def launch_failure(
    why: str,
    *,
    profile: str,
    headless: bool,
    exit_code: int | None,
    stderr_tail: Sequence[str],
    env: Mapping[str, str],
    holder: int | None = None,
    platform: str = sys.platform,
) -> str:
    """What to tell the user when Chrome did not answer: ``why`` and its cause, with what to do.

    The causes we can name: another Chrome holds the profile (exit 21, its own words, or a live
    ``SingletonLock``), a window with no display. Otherwise the reference's guess, which is the
    usual cause of an exit before answering: a Chrome that runs the profile took the launch over.
    """
    said = "\n".join(stderr_tail)
    if holder is not None or exit_code == PROFILE_IN_USE_EXIT or any(m in said for m in _PROFILE_IN_USE_SAID):
        who = f"another Chrome (pid {holder})" if holder is not None else "another Chrome"
        return (
            f"{why}: the profile {profile} is locked by {who} — close that Chrome (pix3 editor --stop-chrome,"
            " if pix3 started it) or set PIX3_CHROME_PROFILE to another folder, then run pix3 editor again."
        )
    no_display = platform.startswith("linux") and not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY")
    if any(m in said for m in _NO_DISPLAY_SAID) or (no_display and not headless):
        return (
            f"{why}: there is no display for a Chrome window (DISPLAY and WAYLAND_DISPLAY are not set) — use"
            " pix3 editor --headless, or run it in a desktop session."
        )
    return (
        f"{why}. A Chrome that already runs the profile {profile} (an editor window of an earlier "
        "pix3 editor?) takes a new launch over: close it and run pix3 editor again."
    )
