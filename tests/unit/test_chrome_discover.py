"""Chrome discovery (docs/chrome-owner.md, "Finding Chrome") and the "No Chrome found" text."""

from __future__ import annotations

import os
from pathlib import Path

from pix3net.owner.chrome.discover import find_chrome, no_chrome_message


def _exe(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_pix3_chrome_wins_as_is_without_existence_check(tmp_path: Path) -> None:
    assert find_chrome({"PIX3_CHROME": "/opt/chrome.sh"}, "linux") == "/opt/chrome.sh"
    assert find_chrome({"PIX3_CHROME": "/opt/chrome.sh"}, "darwin") == "/opt/chrome.sh"
    # empty counts as unset
    assert find_chrome({"PIX3_CHROME": "", "PATH": str(tmp_path)}, "linux") is None


def test_empty_places_find_nothing(tmp_path: Path) -> None:
    assert find_chrome({"PATH": str(tmp_path)}, "linux") is None
    assert find_chrome({"PATH": ""}, "linux") is None
    assert find_chrome({"PROGRAMFILES": str(tmp_path)}, "win32") is None


def test_name_order_beats_path_order(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    _exe(first / "chromium")
    _exe(second / "google-chrome")
    env = {"PATH": os.pathsep.join(["", str(first), str(second)])}
    assert find_chrome(env, "linux") == str(second / "google-chrome")


def test_path_entries_must_be_executable_files(tmp_path: Path) -> None:
    (tmp_path / "d1" / "chromium").mkdir(parents=True)  # a folder of that name
    plain = tmp_path / "d2" / "chromium"
    plain.parent.mkdir()
    plain.write_text("")  # not executable
    good = _exe(tmp_path / "d3" / "chromium-browser")
    env = {"PATH": os.pathsep.join(str(tmp_path / d) for d in ("d1", "d2", "d3"))}
    assert find_chrome(env, "linux") == str(good)


def test_macos_home_applications(tmp_path: Path) -> None:
    assert not Path("/Applications").exists(), "this test assumes a machine without /Applications"
    assert find_chrome({"HOME": str(tmp_path)}, "darwin") is None
    app = _exe(tmp_path / "Applications/Google Chrome.app/Contents/MacOS/Google Chrome")
    assert find_chrome({"HOME": str(tmp_path)}, "darwin") == str(app)
    assert find_chrome({"HOME": str(tmp_path), "PATH": str(app.parent)}, "linux") is None


def test_windows_roots_in_order(tmp_path: Path) -> None:
    local, x86 = tmp_path / "local", tmp_path / "x86"
    assert find_chrome({"PROGRAMFILES": str(tmp_path / "pf"), "LOCALAPPDATA": str(local)}, "win32") is None
    in_local = _exe(local / "Google" / "Chrome" / "Application" / "chrome.exe")
    in_x86 = _exe(x86 / "Google" / "Chrome" / "Application" / "chrome.exe")
    env = {"PROGRAMFILES": "", "PROGRAMFILES(X86)": str(x86), "LOCALAPPDATA": str(local)}
    assert find_chrome(env, "win32") == str(in_x86)
    assert find_chrome({"LOCALAPPDATA": str(local)}, "win32") == str(in_local)


def test_no_chrome_message_hints() -> None:
    start = "No Chrome found. Install Google Chrome (or Chromium), or point PIX3_CHROME at the binary "
    assert no_chrome_message("linux") == start + "(google-chrome, chromium or chromium-browser on the PATH)."
    assert no_chrome_message("darwin") == start + "(the usual place is /Applications/Google Chrome.app)."
    assert (
        no_chrome_message("win32")
        == start + "(the usual place is %ProgramFiles%\\Google\\Chrome\\Application\\chrome.exe)."
    )
