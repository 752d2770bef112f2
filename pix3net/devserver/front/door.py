"""The front door's rules for one dev server, built once at start and shared by the splice's
threads and the dispatcher (docs/devserver.md, "The Host rule" and "What the front door refuses").

The rules themselves are pure (`pix3net.wire.hostrule`, `targets`); this binds them to the server's
facts (the public names the user configured, the project, the folders `/@fs/` may name) and
keeps the splice's common case cheap: a Host value seen before is one dictionary lookup, a
target without anything suspect one regular-expression search and one set lookup (its first name
against the host's top folders, which only an absolute path outside the project can start with).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pix3net.devserver.front import targets
from pix3net.wire.hostrule import host_allowed, public_names

HOST_CACHE_MAX = 256  # distinct Host values whose verdict is remembered; a browser sends one or two
PUBLIC_DIR = "public"  # Vite's default public folder: its files are served as if at the root
# The host's top folders are listed again after this long: a new one (a mount) is judged as the
# others within it. Listing `/` per request would put a system call on every module fetch.
TOP_NAMES_TTL_S = 5.0


def serving_roots(root: Path, vite_js: Path | None) -> tuple[str, ...]:
    """The folders `/@fs/` may name: the project, every `node_modules` from the project up (where
    a hoisted or linked install puts the packages Vite serves), and Vite's own package; each as
    given and with its links resolved, since Vite writes `/@fs/` URLs of real paths.

    Approximates Vite's own default (the workspace root) without running the project's config:
    a `server.fs.allow` widened in `vite.config.*` is not read (docs/devserver.md)."""
    folders = [root]
    folders += [folder / "node_modules" for folder in (root, *root.parents) if (folder / "node_modules").is_dir()]
    if vite_js is not None:
        folders.append(vite_js.parent.parent)
    found: list[str] = []
    for folder in folders:
        for variant in (os.path.abspath(folder), os.path.realpath(folder)):
            if variant not in found:
                found.append(variant.rstrip("/") or "/")
    return tuple(found)


@dataclass
class Door:
    root: Path
    public: frozenset[str]
    roots: tuple[str, ...]
    _verdicts: dict[bytes, bool] = field(default_factory=dict)
    _top: frozenset[bytes] | None = None
    _top_at: float = -TOP_NAMES_TTL_S

    @classmethod
    def for_project(cls, root: Path, public_url: str | None, vite_js: Path | None) -> Door:
        return cls(root.resolve(), public_names(public_url), serving_roots(root, vite_js))

    def host_ok(self, values: Sequence[str]) -> bool:
        """The Host rule over a request's `Host` field values."""
        return host_allowed(values, self.public)

    def host_field_ok(self, value: bytes | None) -> bool:
        """The splice's version: the one `Host` value cut from the head (None: missing or
        duplicated), the verdict remembered per distinct value (dict reads and writes are atomic
        under the GIL: the connection threads share it)."""
        if value is None:
            return False
        verdict = self._verdicts.get(value)
        if verdict is None:
            verdict = host_allowed([value.decode("latin-1")], self.public)
            if len(self._verdicts) < HOST_CACHE_MAX:
                self._verdicts[value] = verdict
        return verdict

    def plain(self, target: bytes) -> bool:
        """Whether ``target`` certainly passes `target_refusal` without asking it: origin-form,
        nothing suspect in it, and a first name no top folder of the host has (`unsuspected_name`;
        in lower case: macOS opens `/ETC` as `/etc`). The splice's and the dispatcher's fast check."""
        if target[:1] != b"/":
            return False
        name = targets.unsuspected_name(target)
        if name is None:
            return False
        top = self._top_names()
        return top is not None and name not in top

    def target_refusal(self, target: bytes) -> str | None:
        """Why ``target`` (path and query as sent) must not reach Vite or the folder, or None."""
        if self.plain(target):
            return None
        return targets.refusal(target, self.roots, self.outside)

    def invoke_refusal(self, message: str | bytes) -> str | None:
        """Why a client's HMR socket message must not reach Vite, or None."""
        return targets.invoke_refusal(message, self.roots, self.outside)

    def outside(self, path: str) -> bool:
        """Whether Vite, handed the absolute ``path``, would read a file outside the project: it
        tries the project's own file of that name first (and its public folder's), then the path
        as it is. A folder is no file (a game's route `/home` is not the host's `/home`)."""
        if targets.under(path, self.roots):
            return False
        relative = path.lstrip("/")
        if os.path.exists(self.root / relative) or os.path.exists(self.root / PUBLIC_DIR / relative):
            return False
        try:
            return not stat.S_ISDIR(os.stat(path).st_mode)
        except (OSError, ValueError):  # no such file, or a name the system cannot look up
            return False

    def _top_names(self) -> frozenset[bytes] | None:
        """The host's top folders (`os.listdir("/")`) in lower case, listed again after
        TOP_NAMES_TTL_S (the connection threads may list it twice at once, harmlessly); None
        when `/` cannot be listed: then no target is plain."""
        now = time.monotonic()
        if now - self._top_at > TOP_NAMES_TTL_S:
            try:
                self._top = frozenset(name.lower() for name in os.listdir(b"/"))
            except OSError:
                self._top = None
            self._top_at = now
        return self._top
