"""Hypothesis: any sequence of API writes and outside changes keeps the table equal to a fresh
scan, and the emitted events replayed on an empty model give the same files (docs/devserver-files.md, "The file table and its events")."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pix3net.devserver.files import FileCore, FileError, Scanner, http_error

NAMES = st.sampled_from(["a", "b", "c.txt", "d.pix3scene"])
PATHS = st.lists(NAMES, min_size=1, max_size=3).map("/".join)
DATA = st.sampled_from([b"", b"one", b"two", b"three"])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), PATHS, DATA),
        st.tuples(st.just("mkdir"), PATHS),
        st.tuples(st.just("delete"), PATHS, st.booleans()),
        st.tuples(st.just("move"), PATHS, PATHS, st.booleans()),
        st.tuples(st.just("outside-write"), PATHS, DATA),
        st.tuples(st.just("outside-delete"), PATHS),
        st.tuples(st.just("rescan")),
    ),
    max_size=12,
)


def replay(model: dict[str, str], frame: dict[str, Any]) -> None:
    for event in frame["events"]:
        if event["kind"] != "file":
            continue
        if event["op"] == "delete":
            model.pop(event["path"], None)
        else:
            if event["op"] == "rename":
                model.pop(event["from"], None)
            model[event["path"]] = event["sha256"]


def outside(root: Path, op: tuple[Any, ...]) -> None:
    target = root / op[1]
    try:
        if op[0] == "outside-write":
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_dir():
                return
            target.write_bytes(op[2])
        elif target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    except (NotADirectoryError, FileExistsError):
        pass


@settings(max_examples=150, deadline=None)
@given(ops=OPS)
def test_events_replay_to_the_table(ops: list[tuple[Any, ...]]) -> None:
    root = Path(tempfile.mkdtemp(prefix="devfiles-model-"))
    try:
        frames: list[dict[str, Any]] = []
        core = FileCore(root, emit=frames.append)
        core.start()
        seqs = [0]
        for op in ops:
            try:
                if op[0] == "put":
                    core.put_bytes(op[1], op[2])
                elif op[0] == "mkdir":
                    core.mkdir(op[1], None)
                elif op[0] == "delete":
                    core.delete(op[1], op[2], None)
                elif op[0] == "move":
                    core.move(op[1], op[2], op[3], None)
                elif op[0] == "rescan":
                    core.rescan()
                else:
                    outside(root, op)
                    core.rescan()
            except FileError as exc:
                assert http_error(exc).status in (400, 404, 409), http_error(exc).body()
            seqs.append(core.seq)
        assert seqs == sorted(seqs)
        fresh = Scanner(str(root)).scan("")
        # Files match exactly; a folder's own mtime may lag (stat-only changes are silent).
        assert {p: e if e.kind == "file" else e.kind for p, e in core.table.items()} == {
            p: e if e.kind == "file" else e.kind for p, e in fresh.items()
        }
        model: dict[str, str] = {}
        for frame in frames:
            replay(model, frame)
        assert model == {p: e.sha256 for p, e in fresh.items() if e.kind == "file"}
        assert [f["seq"] for f in frames] == sorted({f["seq"] for f in frames})
        if (root / ".pix3" / "tmp").exists():
            assert os.listdir(root / ".pix3" / "tmp") == []
    finally:
        shutil.rmtree(root, ignore_errors=True)
