"""The changeset transaction and its start-up recovery (docs/devserver-files.md, "Changesets").

Stage every new file and a copy of every old one in `.pix3/tx/<id>/`, write `intent.json`
durably, rename the new files over their targets, mark the intent committed, clean up. A
server killed at any point leaves a tx folder that `recover` rolls forward (everything was
staged and each target is either still staged or already has the intended bytes) or back.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from pix3tools.core.private import Folder

from ._conditions import check_preconditions
from ._errors import FileConflict, FileError, FileInvalid, FileTooLarge
from ._fsutil import (
    copy_out,
    fsync_parent,
    makedirs_nofollow,
    open_file_nofollow,
    permission_bits,
    private_or_skip,
    rename_into,
    unlink_file_within,
)
from ._paths import is_journaled, missing_ancestors, parse_wire_path, resolve

MAX_FILES = 1000
TX_ID = re.compile(r"^\d{1,20}-[0-9a-f]{12}\Z")  # `<epoch ms>-<12 hex>`, what run_changeset names a folder
SHA256 = re.compile(r"^[0-9a-f]{64}\Z")
MAX_INTENT_BYTES = 16 * 1024 * 1024  # 1 000 entries of a 4 096-character path take ~4.3 MB


class ChangesetCore(Protocol):
    """What a changeset and its recovery use of the file core (`_core.FileCore`, which runs
    them): named here so this module does not import the one that imports it."""

    root: str
    seq: int
    log: Callable[[str], None]
    clock_ms: Callable[[], int]
    fault: Callable[[str], None]

    @property
    def lock(self) -> AbstractContextManager[Any]: ...
    def check_writer(self, writer: str | None) -> None: ...
    def current_hash(self, wire: str) -> str | None: ...
    def private(self, *sub: str, create: bool = True) -> Folder: ...
    def abspath(self, wire: str) -> str: ...
    def remember_own(self, wire: str, st: os.stat_result, sha: str) -> None: ...
    def apply(self, prefixes: Iterable[str], *, mode: str, writer: str | None = None) -> Any: ...
    def journal(self, wire: str, author: str, note: str | None = None) -> None: ...


@dataclass(frozen=True)
class ChangeEntry:
    path: str
    data: bytes
    sha256: str
    if_match: str | None
    create_only: bool


def parse_changeset(body: dict[str, Any]) -> list[ChangeEntry]:
    """Validate a changeset body; errors name the entry."""
    files = body.get("files")
    if not isinstance(files, list) or not files:
        raise FileInvalid("bad_request", "`files` must be a non-empty array.")
    if len(files) > MAX_FILES:
        raise FileTooLarge("too_many_files", f"At most {MAX_FILES} files.")
    entries: list[ChangeEntry] = []
    seen: set[str] = set()
    for index, item in enumerate(files):
        if not isinstance(item, dict):
            raise FileInvalid("bad_request", f"files[{index}] is not an object.")
        path = parse_wire_path(item.get("path"), f"files[{index}].path")
        if path in seen:
            raise FileInvalid("bad_request", f"{path} appears twice in one changeset.", path=path)
        seen.add(path)
        text, b64 = item.get("text"), item.get("base64")
        if isinstance(text, str) == isinstance(b64, str):
            raise FileInvalid("bad_request", f"files[{index}] needs exactly one of `text` or `base64`.")
        if isinstance(text, str):
            data = text.encode("utf-8", "surrogatepass")
        else:
            assert isinstance(b64, str)
            try:
                data = base64.b64decode(b64, validate=False)
            except (binascii.Error, ValueError):
                raise FileInvalid("bad_request", f"files[{index}].base64 is not base64.") from None
        tag = item.get("ifMatch")
        if tag is not None and (not isinstance(tag, str) or tag == ""):
            raise FileInvalid("bad_request", f"files[{index}].ifMatch must be a string.")
        if isinstance(tag, str):
            tag = tag.strip()
            if tag.startswith("W/"):
                tag = tag[2:]
            tag = tag.strip('"')
            tag = tag if tag == "*" else tag.lower()
        sha = hashlib.sha256(data).hexdigest()
        entries.append(ChangeEntry(path, data, sha, tag, item.get("createOnly") is True))
    return entries


def fingerprint(entries: list[ChangeEntry]) -> str:
    parts = ["changeset"]
    for e in entries:
        parts += [e.path, e.sha256, str(e.if_match), str(e.create_only)]
    return "\n".join(parts)


def _write_intent(folder: Folder, intent: dict[str, Any]) -> None:
    folder.write("intent.json", (json.dumps(intent, indent=2) + "\n").encode(), mode=0o600)


def _stage(
    core: ChangesetCore, folder: Folder, new: Folder, old: Folder, tx_id: str, entries: list[ChangeEntry]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """`new/<n>`, `old/<n>` and a durable `intent.json` in ``folder``."""
    intent_files = []
    for n, entry in enumerate(entries):
        mode = permission_bits(core.root, entry.path)
        new.write_new(str(n), entry.data, mode=mode)
        old_copy = "absent"
        if mode is not None:
            copy_out(core.root, entry.path, old, str(n))
            old_copy = f"old/{n}"
        intent_files.append({"path": entry.path, "sha256": entry.sha256, "old": old_copy})
    new.fsync()
    old.fsync()
    intent = {"id": tx_id, "files": intent_files, "state": "prepared"}
    _write_intent(folder, intent)
    return intent, intent_files


def run_changeset(core: ChangesetCore, entries: list[ChangeEntry], writer: str | None) -> dict[str, Any]:
    with core.lock:
        core.check_writer(writer)
        for entry in entries:
            try:
                kind, _st = resolve(core.root, entry.path, allow_missing=True)
                if kind in ("dir", "other"):
                    raise FileConflict("not_a_file", f"{entry.path} exists and is not a file.")
                current = core.current_hash(entry.path) if kind == "file" else None
                check_preconditions(
                    entry.path, current, None if entry.if_match is None else [entry.if_match], entry.create_only
                )
            except FileError as exc:
                raise exc.with_extra(path=entry.path) from None
        with contextlib.ExitStack() as stack:
            tx = stack.enter_context(core.private("tx"))
            tx_id = f"{core.clock_ms()}-{secrets.token_hex(6)}"
            tx.mkdir(tx_id, 0o700)
            try:
                folder = stack.enter_context(tx.sub(tx_id))
                new = stack.enter_context(folder.sub("new", create=True))
                old = stack.enter_context(folder.sub("old", create=True))
                intent, intent_files = _stage(core, folder, new, old, tx_id, entries)
            except BaseException:  # a full disk while staging: nothing was renamed, nothing is kept
                with contextlib.suppress(OSError):
                    tx.remove(tx_id)
                raise
            tx.fsync()
            core.fault("changeset:staged")
            renamed: list[int] = []
            tops: list[str] = []
            try:
                for n, entry in enumerate(entries):
                    new_dirs = missing_ancestors(core.root, entry.path)
                    if new_dirs:
                        makedirs_nofollow(core.root, new_dirs[-1])
                    tops.append(new_dirs[0] if new_dirs else entry.path)
                    rename_into(new, str(n), core.root, entry.path)
                    renamed.append(n)
                    core.fault(f"changeset:renamed:{n + 1}")
            except BaseException as exc:
                try:
                    for n in reversed(renamed):
                        _undo(core, old, tx_id, intent_files[n])
                    tx.remove(tx_id)
                except OSError as undo_exc:
                    core.log(f"changeset {tx_id}: rollback failed ({undo_exc}); start-up recovery will finish it")
                if isinstance(exc, NotADirectoryError):
                    raise FileConflict(
                        "not_a_directory", f"A parent of {entries[len(renamed)].path} is not a directory."
                    ) from None
                raise
            for wire in {e.path for e in entries}:
                with contextlib.suppress(OSError):
                    fsync_parent(core.root, wire)
            try:
                _write_intent(folder, {**intent, "state": "committed"})
            except OSError as exc:  # every target has its new bytes: recovery would roll forward anyway
                core.log(f"changeset {tx_id}: could not mark it committed ({exc}); the files are written")
            core.fault("changeset:committed")
            results = []
            for entry in entries:
                core.remember_own(entry.path, os.lstat(core.abspath(entry.path)), entry.sha256)
            core.apply(tops, mode="own", writer=writer)
            with contextlib.suppress(OSError):
                tx.remove(tx_id)
        for entry in entries:
            if is_journaled(entry.path):
                core.journal(entry.path, "editor")
            results.append({"path": entry.path, "sha256": entry.sha256, "size": len(entry.data), "seq": core.seq})
        return {"seq": core.seq, "files": results}


def _undo(core: ChangesetCore, old: Folder | None, tx_id: str, item: dict[str, Any]) -> None:
    """Put one renamed entry back: its old copy renamed over it, or the file removed when there was
    none. Every step goes through the project's folders without following a link."""
    if item["old"] == "absent":
        with contextlib.suppress(FileNotFoundError):
            unlink_file_within(core.root, item["path"])
        return
    copy = item["old"].removeprefix("old/")
    if old is None or old.lstat(copy) is None:
        core.log(f"changeset {tx_id}: no old copy of {item['path']}; left as it is")
        return
    rename_into(old, copy, core.root, item["path"])


def _sha_of_fd(fd: int) -> str:
    try:
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)


def _staged_sha(new: Folder | None, name: str) -> str | None:
    if new is None:
        return None
    try:
        return _sha_of_fd(new.open_read(name))
    except OSError:
        return None


def _project_sha(core: ChangesetCore, wire: str) -> str | None:
    try:
        return _sha_of_fd(open_file_nofollow(core.root, wire))
    except OSError:
        return None


def _read_intent(folder: Folder, tx_id: str) -> dict[str, Any] | None:
    """The intent, when every field is what run_changeset writes: its own id, a known state, each
    entry a valid wire path, a sha256 and `absent` or its own `old/<n>`; else None."""
    try:
        raw = folder.read("intent.json", limit=MAX_INTENT_BYTES)
        intent = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(intent, dict) or intent.get("state") not in ("prepared", "committed"):
        return None
    if intent.get("id") != tx_id:
        return None
    files = intent.get("files")
    if not isinstance(files, list) or len(files) > MAX_FILES:
        return None
    for n, item in enumerate(files):
        if not isinstance(item, dict) or not isinstance(item.get("sha256"), str) or not SHA256.match(item["sha256"]):
            return None
        try:
            parse_wire_path(item.get("path"))
        except FileError:
            return None
        if item.get("old") not in ("absent", f"old/{n}"):
            return None
    return intent


def recover(core: ChangesetCore) -> None:
    """Finish or undo every changeset a killed server left in `.pix3/tx`.

    Only folders named like a changeset are settled; a `.pix3/tx` (or a changeset folder) that is
    a link is left alone and logged, and every path an intent names is reached without following
    a link (docs/devserver-files.md, "Links in .pix3").
    """
    tx = private_or_skip(core.root, "tx", core.log, "changeset recovery")
    if tx is None:
        return
    with tx:
        for name, st in sorted(tx.entries()):
            if not TX_ID.match(name):
                shown = name.encode("unicode_escape").decode("ascii")  # a name from disk: no control bytes in the log
                core.log(f"changeset recovery: {tx.child_path(shown)} is not named like a changeset; left alone")
                continue
            if not stat.S_ISDIR(st.st_mode):
                what = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a folder"
                core.log(f"changeset recovery: {tx.child_path(name)} is {what}; left alone")
                continue
            try:
                folder = tx.sub(name)
            except OSError as exc:
                core.log(f"changeset {name}: {exc}; left alone")
                continue
            with folder:
                intent = _read_intent(folder, name)
                if intent is None:
                    core.log(f"changeset {name}: no readable intent, nothing was renamed; discarded")
                elif intent["state"] == "committed":
                    for item in intent["files"]:
                        if is_journaled(item["path"]):
                            core.journal(item["path"], "editor")
                    core.log(f"changeset {name}: committed; cleaned up")
                else:
                    _recover_prepared(core, name, folder, intent["files"])
            with contextlib.suppress(OSError):
                tx.remove(name)


def _optional_sub(folder: Folder, name: str) -> Folder | None:
    try:
        return folder.sub(name)
    except OSError:
        return None


def _recover_prepared(core: ChangesetCore, name: str, folder: Folder, files: list[dict[str, Any]]) -> None:
    new = _optional_sub(folder, "new")
    old = _optional_sub(folder, "old")
    try:
        _settle(core, name, new, old, files)
    finally:
        for sub in (new, old):
            if sub is not None:
                sub.close()


def _settle(
    core: ChangesetCore, name: str, new: Folder | None, old: Folder | None, files: list[dict[str, Any]]
) -> None:
    staged = [new is not None and new.lstat(str(n)) is not None for n in range(len(files))]
    consistent = True
    for n, item in enumerate(files):
        if staged[n]:
            ok = _staged_sha(new, str(n)) == item["sha256"]
        else:
            ok = _project_sha(core, item["path"]) == item["sha256"]
        consistent = consistent and ok
    if consistent:
        try:
            for n, item in enumerate(files):
                if staged[n]:
                    assert new is not None
                    resolve(core.root, item["path"], allow_missing=True)
                    new_dirs = missing_ancestors(core.root, item["path"])
                    if new_dirs:
                        makedirs_nofollow(core.root, new_dirs[-1])
                    rename_into(new, str(n), core.root, item["path"])
        except (OSError, FileError) as exc:
            core.log(f"changeset {name}: could not roll forward ({exc}); rolling back")
        else:
            for item in files:
                if is_journaled(item["path"]):
                    core.journal(item["path"], "editor")
            core.log(f"changeset {name}: interrupted after staging; rolled forward ({len(files)} files)")
            return
    for n, item in enumerate(files):
        if new is not None and new.lstat(str(n)) is not None:
            continue  # never renamed: its target was not touched
        try:
            _undo(core, old, name, item)
        except OSError as exc:
            core.log(f"changeset {name}: could not restore {item['path']}: {exc}")
    for item in files:
        if is_journaled(item["path"]) and os.path.lexists(core.abspath(item["path"])):
            core.journal(item["path"], "restore")
    core.log(f"changeset {name}: staging incomplete; rolled back ({len(files)} files)")
