"""The proxy token file `$PIX3_HOME/cdp-token` (docs/cdp-proxy.md, "The token file").

32 random bytes as unpadded base64url (43 characters) and a newline, mode 0600, created
exclusively: when two pix3 processes race, the file that landed first wins.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import stat
from pathlib import Path

TOKEN_FILE = "cdp-token"
REMOTE_TOKEN_FILE = "remote-cdp-token"
# What a token must look like to be used; shorter or stranger contents are replaced.
_VALID = re.compile(r"^[A-Za-z0-9_-]{32,}$")
_TOKEN_BYTES = 32  # → 43 base64url characters


def is_valid_token(text: str) -> bool:
    return bool(_VALID.match(text.strip()))


def new_token() -> str:
    # os.urandom is what secrets.token_bytes calls; importing secrets (hmac, OpenSSL) would cost
    # the owner ≈ 3 ms before it can spawn Chrome.
    return base64.urlsafe_b64encode(os.urandom(_TOKEN_BYTES)).rstrip(b"=").decode("ascii")


def read_token(path: Path) -> str | None:
    """The valid token in ``path``, or None (missing, unreadable or not a token)."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if _VALID.match(text) else None


def _narrow(path: Path) -> None:
    with contextlib.suppress(OSError):
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            path.chmod(0o600)


def ensure_token(home: Path, name: str = TOKEN_FILE) -> str:
    """Return the home's token, creating it (0600, exclusive) when missing or invalid."""
    path = home / name
    token = read_token(path)
    if token is not None:
        _narrow(path)
        return token
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = new_token()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        theirs = read_token(path)
        if theirs is not None:  # another pix3 won the race: use its token
            _narrow(path)
            return theirs
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    _narrow(path)
    return token
