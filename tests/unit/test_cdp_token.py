"""The token file (docs/cdp-proxy.md, "The token file"): format, mode, races and repairs, on real files."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from pix3net.wire.token import ensure_token, is_valid_token, read_token


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_token_is_43_base64url_chars_0600(tmp_path: Path) -> None:
    home = tmp_path / "home"
    token = ensure_token(home)
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", token)
    path = home / "cdp-token"
    assert path.read_text() == token + "\n"
    assert mode(path) == 0o600
    assert ensure_token(home) == token  # stable


def test_wider_mode_is_narrowed(tmp_path: Path) -> None:
    token = ensure_token(tmp_path)
    (tmp_path / "cdp-token").chmod(0o644)
    assert ensure_token(tmp_path) == token
    assert mode(tmp_path / "cdp-token") == 0o600


def test_existing_valid_token_wins(tmp_path: Path) -> None:
    theirs = "t" * 43
    (tmp_path / "cdp-token").write_text(theirs + "\n")
    assert ensure_token(tmp_path) == theirs


def test_invalid_file_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "cdp-token"
    path.write_text("short\n")
    os.chmod(path, 0o666)
    token = ensure_token(tmp_path)
    assert token != "short" and is_valid_token(token)
    assert read_token(path) == token
    assert mode(path) == 0o600


def test_validity_rule() -> None:
    assert is_valid_token("a" * 32)
    assert is_valid_token(" " + "a" * 32 + "\n")
    assert not is_valid_token("a" * 31)
    assert not is_valid_token("a" * 31 + "=")
