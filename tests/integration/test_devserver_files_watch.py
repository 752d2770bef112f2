"""External changes reach the emit callback: inotify batches and the periodic rescan (docs/devserver-files.md, "The file table and its events")."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest
import trio

from pix3net.devserver.files import FileStore


def sha(data: str) -> str:
    return hashlib.sha256(data.encode()).hexdigest()


async def wait_frames(frames: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    with trio.fail_after(10):
        while len(frames) < count:  # noqa: ASYNC110 - the emit callback appends to a plain list
            await trio.sleep(0.02)
    return frames


def events(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for f in frames for e in f["events"]]


async def settled(project: Path, frames: list[dict[str, Any]], marker: str) -> list[dict[str, Any]]:
    """The frames, once the watcher has handled every change made before this call.

    An outside write is the marker: inotify delivers in order and batches run one at a time, so
    when the marker's frame is out, a frame for any earlier change would be out too. Marker
    frames (the marker alone, else an earlier change leaked into one) are left out."""
    (project / marker).write_text(marker)
    with trio.fail_after(10):
        while not any(e["path"] == marker for e in events(frames)):  # noqa: ASYNC110 - a plain list
            await trio.sleep(0.02)
    markers = [f for f in frames if any(e["path"].startswith("marker-") for e in f["events"])]
    assert all(len(frame["events"]) == 1 for frame in markers), markers
    return [f for f in frames if f not in markers]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("a")
    return root


async def started(project: Path) -> tuple[FileStore, list[dict[str, Any]]]:
    frames: list[dict[str, Any]] = []
    store = FileStore(project, emit=frames.append)
    await store.start()
    return store, frames


async def test_watcher_batches_external_changes_and_follows_new_folders(project: Path) -> None:
    store, frames = await started(project)
    async with trio.open_nursery() as nursery:
        await nursery.start(store.watch)
        (project / "new" / "deep").mkdir(parents=True)
        (project / "new" / "deep" / "f.txt").write_text("one")
        (project / "a.txt").rename(project / "b.txt")
        start = trio.current_time()
        (first,) = await wait_frames(frames, 1)
        assert trio.current_time() - start < 5  # inotify, not the 10 s safety rescan
        assert [(e["op"], e["path"], e.get("from")) for e in first["events"]] == [
            ("rename", "b.txt", "a.txt"),
            ("create", "new", None),
            ("create", "new/deep", None),
            ("create", "new/deep/f.txt", None),
        ]
        assert all(e["author"] == "external" for e in first["events"]) and first["seq"] == 1
        # The new folder is watched: a change inside it is seen without a full rescan.
        (project / "new" / "deep" / "f.txt").write_text("two")
        await wait_frames(frames, 2)
        assert frames[1]["events"] == [
            {"op": "modify", "path": "new/deep/f.txt", "kind": "file", "sha256": sha("two"), "author": "external"}
        ]
        # Our own write is in the table already: the watcher's echo finds nothing.
        await store.put("own.txt", _chunks(b"own"), content_length=3, if_match=None, if_none_match=None, writer=None)
        seen = await settled(project, frames, "marker-1")
        assert len(seen) == 3 and seen[2]["events"][0]["author"] == "editor"
        # Private and excluded folders never produce frames.
        (project / "node_modules").mkdir()
        (project / "node_modules" / "x.js").write_text("x")
        (project / ".pix3" / "notes").mkdir(parents=True, exist_ok=True)
        (project / ".pix3" / "notes" / "n.md").write_text("n")
        os.symlink(project / "b.txt", project / "link.txt")
        assert len(await settled(project, frames, "marker-2")) == 3
        nursery.cancel_scope.cancel()


async def test_a_moved_folder_stays_watched_under_its_new_name(project: Path) -> None:
    (project / "old" / "inner").mkdir(parents=True)
    (project / "old" / "inner" / "f.txt").write_text("1")
    store, frames = await started(project)
    async with trio.open_nursery() as nursery:
        await nursery.start(store.watch)
        (project / "old").rename(project / "new")
        await wait_frames(frames, 1)
        assert ("rename", "new/inner/f.txt", "old/inner/f.txt") in [
            (e["op"], e["path"], e.get("from")) for e in frames[0]["events"]
        ]
        start = trio.current_time()
        (project / "new" / "inner" / "f.txt").write_text("2")
        await wait_frames(frames, 2)
        assert trio.current_time() - start < 5  # inotify, not the 10 s safety rescan
        assert frames[1]["events"] == [
            {"op": "modify", "path": "new/inner/f.txt", "kind": "file", "sha256": sha("2"), "author": "external"}
        ]
        nursery.cancel_scope.cancel()


async def test_a_file_still_being_written_waits_until_stable(project: Path) -> None:
    store, frames = await started(project)
    async with trio.open_nursery() as nursery:
        await nursery.start(store.watch)
        for n in range(12):
            (project / "growing.txt").write_text("x" * n)
            await trio.sleep(0.1)
        final_sha = sha("x" * 11)

        def reported() -> bool:
            return any(e["path"] == "growing.txt" and e.get("sha256") == final_sha for e in events(frames))

        with trio.fail_after(10):  # an unstable path is retried until two scans agree
            while not reported():  # noqa: ASYNC110 - the emit callback appends to a plain list
                await trio.sleep(0.02)
        final = [e for e in events(await settled(project, frames, "marker-1")) if e["path"] == "growing.txt"]
        # Whatever was reported in between, the last word is the final content.
        assert final[-1]["sha256"] == sha("x" * 11)
        assert store.table_sha("growing.txt") == sha("x" * 11)
        nursery.cancel_scope.cancel()


async def test_rescan_only_mode(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pix3net.devserver.files._diskwatch.Inotify.create", classmethod(lambda cls: None))
    monkeypatch.setattr("pix3net.devserver.files._diskwatch.RESCAN_WITHOUT_INOTIFY_S", 0.2)
    store, frames = await started(project)
    async with trio.open_nursery() as nursery:
        await nursery.start(store.watch)
        (project / "a.txt").write_text("changed")
        await wait_frames(frames, 1)
        assert frames[0]["events"][0]["sha256"] == sha("changed")
        nursery.cancel_scope.cancel()


async def _chunks(data: bytes) -> Any:
    yield data
