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
import secrets
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pix3net.devserver.errors import ApiError

from ._conditions import check_preconditions
from ._fsutil import copy_out, fsync_dir, makedirs_nofollow, permission_bits, rename_into, write_new
from ._paths import is_journaled, missing_ancestors, parse_wire_path, resolve

if TYPE_CHECKING:
    from ._core import FileCore

MAX_FILES = 1000


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
        raise ApiError(400, "bad_request", "`files` must be a non-empty array.")
    if len(files) > MAX_FILES:
        raise ApiError(413, "too_many_files", f"At most {MAX_FILES} files.")
    entries: list[ChangeEntry] = []
    seen: set[str] = set()
    for index, item in enumerate(files):
        if not isinstance(item, dict):
            raise ApiError(400, "bad_request", f"files[{index}] is not an object.")
        path = parse_wire_path(item.get("path"), f"files[{index}].path")
        if path in seen:
            raise ApiError(400, "bad_request", f"{path} appears twice in one changeset.", path=path)
        seen.add(path)
        text, b64 = item.get("text"), item.get("base64")
        if isinstance(text, str) == isinstance(b64, str):
            raise ApiError(400, "bad_request", f"files[{index}] needs exactly one of `text` or `base64`.")
        if isinstance(text, str):
            data = text.encode("utf-8", "surrogatepass")
        else:
            assert isinstance(b64, str)
            try:
                data = base64.b64decode(b64, validate=False)
            except (binascii.Error, ValueError):
                raise ApiError(400, "bad_request", f"files[{index}].base64 is not base64.") from None
        tag = item.get("ifMatch")
        if tag is not None and (not isinstance(tag, str) or tag == ""):
            raise ApiError(400, "bad_request", f"files[{index}].ifMatch must be a string.")
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


def _write_intent(folder: str, intent: dict[str, Any]) -> None:
    tmp = os.path.join(folder, f"intent.{secrets.token_hex(4)}.tmp")
    write_new(tmp, (json.dumps(intent, indent=2) + "\n").encode())
    os.replace(tmp, os.path.join(folder, "intent.json"))
    fsync_dir(folder)


def _stage(
    core: FileCore, folder: str, tx_id: str, entries: list[ChangeEntry]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """`new/<n>`, `old/<n>` and a durable `intent.json` in ``folder``."""
    os.makedirs(os.path.join(folder, "new"))
    os.makedirs(os.path.join(folder, "old"))
    intent_files = []
    for n, entry in enumerate(entries):
        target = core.abspath(entry.path)
        mode = permission_bits(target)
        write_new(os.path.join(folder, "new", str(n)), entry.data, mode=mode)
        old = "absent"
        if mode is not None:
            copy_out(core.root, entry.path, os.path.join(folder, "old", str(n)))
            old = f"old/{n}"
        intent_files.append({"path": entry.path, "sha256": entry.sha256, "old": old})
    fsync_dir(os.path.join(folder, "new"))
    fsync_dir(os.path.join(folder, "old"))
    intent = {"id": tx_id, "files": intent_files, "state": "prepared"}
    _write_intent(folder, intent)
    return intent, intent_files


def run_changeset(core: FileCore, entries: list[ChangeEntry], writer: str | None) -> dict[str, Any]:
    with core.lock:
        core.check_writer(writer)
        for entry in entries:
            try:
                kind, _st = resolve(core.root, entry.path, allow_missing=True)
                if kind in ("dir", "other"):
                    raise ApiError(409, "not_a_file", f"{entry.path} exists and is not a file.")
                current = core.current_hash(entry.path) if kind == "file" else None
                check_preconditions(
                    entry.path, current, None if entry.if_match is None else [entry.if_match], entry.create_only
                )
            except ApiError as exc:
                raise exc.with_extra(path=entry.path) from None
        tx_root = os.path.join(core.root, ".pix3", "tx")
        os.makedirs(tx_root, mode=0o700, exist_ok=True)
        tx_id = f"{core.clock_ms()}-{secrets.token_hex(6)}"
        folder = os.path.join(tx_root, tx_id)
        try:
            intent, intent_files = _stage(core, folder, tx_id, entries)
        except BaseException:  # a full disk while staging: nothing was renamed, nothing is kept
            shutil.rmtree(folder, ignore_errors=True)
            raise
        fsync_dir(tx_root)
        core.fault("changeset:staged")
        renamed: list[int] = []
        tops: list[str] = []
        try:
            for n, entry in enumerate(entries):
                new_dirs = missing_ancestors(core.root, entry.path)
                if new_dirs:
                    makedirs_nofollow(core.root, new_dirs[-1])
                tops.append(new_dirs[0] if new_dirs else entry.path)
                rename_into(os.path.join(folder, "new", str(n)), core.root, entry.path)
                renamed.append(n)
                core.fault(f"changeset:renamed:{n + 1}")
        except BaseException as exc:
            try:
                for n in reversed(renamed):
                    _undo(core, folder, intent_files[n])
                shutil.rmtree(folder)
            except OSError as undo_exc:
                core.log(f"changeset {tx_id}: rollback failed ({undo_exc}); start-up recovery will finish it")
            if isinstance(exc, NotADirectoryError):
                raise ApiError(
                    409, "not_a_directory", f"A parent of {entries[len(renamed)].path} is not a directory."
                ) from None
            raise
        for parent in {os.path.dirname(core.abspath(e.path)) for e in entries}:
            with contextlib.suppress(OSError):
                fsync_dir(parent)
        try:
            _write_intent(folder, {**intent, "state": "committed"})
        except OSError as exc:  # every target has its new bytes: recovery would roll forward anyway
            core.log(f"changeset {tx_id}: could not mark it committed ({exc}); the files are written")
        core.fault("changeset:committed")
        results = []
        for entry in entries:
            st = os.lstat(core.abspath(entry.path))
            core.scanner.remember(entry.path, st, entry.sha256)
            core._own[entry.path] = entry.sha256
        core.apply(tops, mode="own", writer=writer)
        shutil.rmtree(folder, ignore_errors=True)
        for entry in entries:
            if is_journaled(entry.path):
                core._journal(entry.path, "editor")
            results.append({"path": entry.path, "sha256": entry.sha256, "size": len(entry.data), "seq": core.seq})
        return {"seq": core.seq, "files": results}


def _undo(core: FileCore, folder: str, item: dict[str, Any]) -> None:
    target = core.abspath(item["path"])
    if item["old"] == "absent":
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)
        return
    old = os.path.join(folder, item["old"])
    if not os.path.exists(old):
        core.log(f"changeset {os.path.basename(folder)}: no old copy of {item['path']}; left as it is")
        return
    rename_into(old, core.root, item["path"])


def _file_sha(path: str) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)


def _read_intent(folder: str) -> dict[str, Any] | None:
    try:
        with open(os.path.join(folder, "intent.json"), "rb") as handle:
            intent = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    if not isinstance(intent, dict) or intent.get("state") not in ("prepared", "committed"):
        return None
    files = intent.get("files")
    if not isinstance(files, list):
        return None
    for n, item in enumerate(files):
        if not isinstance(item, dict) or not isinstance(item.get("sha256"), str):
            return None
        try:
            parse_wire_path(item.get("path"))
        except ApiError:
            return None
        if item.get("old") not in ("absent", f"old/{n}"):
            return None
    return intent


def recover(core: FileCore) -> None:
    """Finish or undo every changeset a killed server left in `.pix3/tx`."""
    tx_root = os.path.join(core.root, ".pix3", "tx")
    try:
        names = sorted(os.listdir(tx_root))
    except OSError:
        return
    for name in names:
        folder = os.path.join(tx_root, name)
        if os.path.islink(folder) or not os.path.isdir(folder):
            continue
        intent = _read_intent(folder)
        if intent is None:
            core.log(f"changeset {name}: no readable intent, nothing was renamed; discarded")
        elif intent["state"] == "committed":
            for item in intent["files"]:
                if is_journaled(item["path"]):
                    core._journal(item["path"], "editor")
            core.log(f"changeset {name}: committed; cleaned up")
        else:
            _recover_prepared(core, name, folder, intent["files"])
        shutil.rmtree(folder, ignore_errors=True)


def _recover_prepared(core: FileCore, name: str, folder: str, files: list[dict[str, Any]]) -> None:
    staged = [os.path.join(folder, "new", str(n)) for n in range(len(files))]
    consistent = True
    for n, item in enumerate(files):
        if os.path.lexists(staged[n]):
            ok = _file_sha(staged[n]) == item["sha256"]
        else:
            ok = _file_sha(core.abspath(item["path"])) == item["sha256"]
        consistent = consistent and ok
    if consistent:
        try:
            for n, item in enumerate(files):
                if os.path.lexists(staged[n]):
                    resolve(core.root, item["path"], allow_missing=True)
                    new_dirs = missing_ancestors(core.root, item["path"])
                    if new_dirs:
                        makedirs_nofollow(core.root, new_dirs[-1])
                    rename_into(staged[n], core.root, item["path"])
        except (OSError, ApiError) as exc:
            core.log(f"changeset {name}: could not roll forward ({exc}); rolling back")
        else:
            for item in files:
                if is_journaled(item["path"]):
                    core._journal(item["path"], "editor")
            core.log(f"changeset {name}: interrupted after staging; rolled forward ({len(files)} files)")
            return
    for n, item in enumerate(files):
        if not os.path.lexists(staged[n]):
            try:
                _undo(core, folder, item)
            except OSError as exc:
                core.log(f"changeset {name}: could not restore {item['path']}: {exc}")
    for item in files:
        if is_journaled(item["path"]) and os.path.lexists(core.abspath(item["path"])):
            core._journal(item["path"], "restore")
    core.log(f"changeset {name}: staging incomplete; rolled back ({len(files)} files)")
