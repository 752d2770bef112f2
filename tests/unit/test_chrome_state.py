"""`chrome.json` (docs/chrome-owner.md, "The record: chrome.json") and the profile folder."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from pix3net.daemon.chromerecord import ChromeRecord, profile_dir, read_record, record_path, remove_record, write_record
from pix3tools.core import pix3_home


def test_paths() -> None:
    assert record_path(pix3_home({"PIX3_HOME": "/x"})) == Path("/x/chrome.json")


def test_missing_and_written(tmp_path: Path) -> None:
    assert read_record(tmp_path) is None
    write_record(tmp_path, ChromeRecord(port=9335, profile="/p", started_at="now"))
    assert read_record(tmp_path) == ChromeRecord(port=9335, profile="/p", started_at="now")


def test_full_record_bytes(tmp_path: Path) -> None:
    record = ChromeRecord(
        9333, "/h/chrome", "2026-10-10T12:00:00.000Z", "http://localhost:5173/__pix3/", 12345, 12350, 1
    )
    write_record(tmp_path / "home", record)
    text = (tmp_path / "home" / "chrome.json").read_text()
    assert text == (
        '{\n  "port": 9333,\n  "profile": "/h/chrome",\n  "startedAt": "2026-10-10T12:00:00.000Z",\n'
        '  "editorUrl": "http://localhost:5173/__pix3/",\n  "ownerPid": 12345,\n  "chromePid": 12350,\n'
        '  "proxy": 1\n}\n'
    )
    assert read_record(tmp_path / "home") == record


def test_tolerant_reader(tmp_path: Path) -> None:
    path = record_path(tmp_path)
    for bad in ("", "[]", '{"port":"9333","profile":"/p"}', '{"port":9333}', '{"port":true,"profile":"/p"}'):
        path.write_text(bad)
        assert read_record(tmp_path) is None, bad
    path.write_text(json.dumps({"port": 9333, "profile": "/p", "ownerPid": "12", "extra": [1]}))
    assert read_record(tmp_path) == ChromeRecord(port=9333, profile="/p")


def test_removed_only_by_its_owner(tmp_path: Path) -> None:
    write_record(tmp_path, ChromeRecord(port=9333, profile="/p", owner_pid=111))
    assert remove_record(tmp_path, 222) is False
    assert record_path(tmp_path).exists()
    assert remove_record(tmp_path, 111) is True
    assert not record_path(tmp_path).exists()
    assert remove_record(tmp_path, 111) is False


def test_profile_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The fallback lives in the temporary folder: this test's own, not the /tmp every run shares.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    home = tmp_path / "home"
    assert profile_dir(home, {}) == home / "chrome"
    assert (home / "chrome").is_dir()
    assert profile_dir(home, {"PIX3_CHROME_PROFILE": ""}) == home / "chrome"
    assert profile_dir(home, {"PIX3_CHROME_PROFILE": str(tmp_path / "p")}) == tmp_path / "p"
    blocker = tmp_path / "file"
    blocker.write_text("")
    fallback = profile_dir(home, {"PIX3_CHROME_PROFILE": str(blocker / "sub")})
    assert fallback == tmp_path / "tmp" / "pix3-chrome" and fallback.is_dir()
    assert os.path.isabs(fallback)
