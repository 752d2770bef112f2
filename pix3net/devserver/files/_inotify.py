"""A minimal inotify(7) binding through ctypes (Linux); `None` elsewhere or when it fails."""

from __future__ import annotations

import ctypes
import os
import struct
import sys

IN_MODIFY = 0x002
IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_EXCL_UNLINK = 0x04000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

WATCH_MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
    | IN_EXCL_UNLINK
)
_HEADER = struct.Struct("iIII")


class Inotify:
    def __init__(self, libc: ctypes.CDLL, fd: int) -> None:
        self._libc = libc
        self.fd = fd

    @classmethod
    def create(cls) -> Inotify | None:
        if not sys.platform.startswith("linux"):
            return None
        try:
            # The running interpreter already links libc: no `ldconfig` subprocess to find it.
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        except (OSError, AttributeError):
            return None
        return cls(libc, fd) if fd >= 0 else None

    def add(self, path: str) -> int:
        """A watch descriptor, or -1 (gone, not a directory, or out of watches)."""
        return int(self._libc.inotify_add_watch(self.fd, os.fsencode(path), WATCH_MASK))

    def remove(self, wd: int) -> None:
        self._libc.inotify_rm_watch(self.fd, wd)

    def read(self) -> list[tuple[int, int, str]]:
        """Pending events as (wd, mask, name); empty when none are ready."""
        try:
            raw = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return []
        events = []
        offset = 0
        while offset + _HEADER.size <= len(raw):
            wd, mask, _cookie, length = _HEADER.unpack_from(raw, offset)
            offset += _HEADER.size
            name = raw[offset : offset + length].rstrip(b"\0")
            offset += length
            events.append((wd, mask, os.fsdecode(name)))
        return events

    def close(self) -> None:
        os.close(self.fd)
