"""The file core without HTTP: table, events, writes, changesets, journal (docs/devserver-files.md)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from pix3net.devserver.files import (
    STATUS,
    Entry,
    FileConflict,
    FileCore,
    FileError,
    diff,
    http_error,
    parse_changeset,
    run_changeset,
)

SCENE = "root:\n  - id: a\n    type: Group2D\n"


def sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        self.now += 1
        return self.now


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / "scenes").mkdir(parents=True)
    (root / "scenes" / "a.pix3scene").write_text(SCENE)
    (root / "index.html").write_text("<html></html>")
    (root / "notes.txt").write_text("notes")
    return root


def make(root: Path, **kwargs: Any) -> tuple[FileCore, list[dict[str, Any]], list[str]]:
    frames: list[dict[str, Any]] = []
    logs: list[str] = []
    core = FileCore(root, emit=frames.append, log=logs.append, **kwargs)
    core.start()
    return core, frames, logs


def code(call: Any) -> tuple[int, str, dict[str, Any]]:
    with pytest.raises(FileError) as caught:
        call()
    return http_error(caught.value).status, caught.value.code, http_error(caught.value).body()


# -- table -----------------------------------------------------------------------------------


def test_table_excludes_private_build_and_linked_entries(project: Path) -> None:
    (project / "node_modules" / "x").mkdir(parents=True)
    (project / "node_modules" / "x" / "index.js").write_text("x")
    (project / "dist").mkdir()
    (project / "dist" / "out.js").write_text("x")
    (project / "src" / "build").mkdir(parents=True)
    (project / "src" / "build" / "deep.js").write_text("x")
    (project / "src" / "coverage").write_text("a FILE named like an excluded dir is kept")
    (project / ".pix3").mkdir()
    (project / ".pix3" / "dev.json").write_text("{}")
    (project / "src" / ".pix3").mkdir()
    (project / "src" / ".pix3" / "kept.txt").write_text("only the root-level .pix3 is skipped")
    (project / ".a.txt.pix3-tmp-0a1b2c").write_text("temp")
    os.symlink(project / "index.html", project / "link.html")
    os.mkfifo(project / "pipe")
    core, _frames, _logs = make(project)
    paths = [f["path"] for f in core.manifest()["files"]]
    assert paths == [
        "index.html",
        "notes.txt",
        "scenes",
        "scenes/a.pix3scene",
        "src",
        "src/.pix3",
        "src/.pix3/kept.txt",
        "src/coverage",
    ]


def test_manifest_entries_and_revision(project: Path) -> None:
    core, _frames, _logs = make(project)
    manifest = core.manifest()
    assert manifest["seq"] == 0
    scene = next(f for f in manifest["files"] if f["path"] == "scenes/a.pix3scene")
    st = os.stat(project / "scenes" / "a.pix3scene")
    assert scene == {
        "path": "scenes/a.pix3scene",
        "kind": "file",
        "size": len(SCENE),
        "mtime": st.st_mtime_ns // 1_000_000,
        "sha256": sha(SCENE),
    }
    folder = next(f for f in manifest["files"] if f["path"] == "scenes")
    assert "sha256" not in folder and folder["kind"] == "dir"
    lines = sorted(f"{f['path']}:{f['sha256']}" for f in manifest["files"] if f["kind"] == "file")
    assert manifest["revision"] == sha("\n".join(lines))


def test_empty_project_revision_is_sha_of_nothing(tmp_path: Path) -> None:
    core, _f, _l = make(tmp_path)
    assert core.revision == sha("")


def test_manifest_sorts_by_utf16_code_units(tmp_path: Path) -> None:
    # U+FF5E sorts after U+1F600 by code point but before it by UTF-16 code unit (JS order).
    (tmp_path / "\uff5e.txt").write_text("a")
    (tmp_path / "\U0001f600.txt").write_text("b")
    core, _f, _l = make(tmp_path)
    assert [f["path"] for f in core.manifest()["files"]] == ["\U0001f600.txt", "\uff5e.txt"]


def test_diff_pairs_one_delete_and_one_create_of_a_sha_into_a_rename() -> None:
    old = {"a.txt": Entry("file", 1, 0, "s1"), "b.txt": Entry("file", 1, 0, "s2"), "c.txt": Entry("file", 1, 0, "s2")}
    new = {"z.txt": Entry("file", 1, 0, "s1"), "y.txt": Entry("file", 1, 0, "s2"), "d": Entry("dir", 0, 0)}
    events = diff(old, new)
    assert events == [
        {"op": "delete", "path": "b.txt", "kind": "file"},
        {"op": "delete", "path": "c.txt", "kind": "file"},
        {"op": "create", "path": "d", "kind": "dir"},
        {"op": "create", "path": "y.txt", "kind": "file", "sha256": "s2"},
        {"op": "rename", "path": "z.txt", "kind": "file", "sha256": "s1", "from": "a.txt"},
    ]


def test_kind_change_is_delete_then_create() -> None:
    events = diff({"x": Entry("file", 1, 0, "s")}, {"x": Entry("dir", 0, 0)})
    assert [(e["op"], e["kind"]) for e in events] == [("delete", "file"), ("create", "dir")]


def test_stat_only_change_is_silent(project: Path) -> None:
    core, frames, _l = make(project)
    os.utime(project / "notes.txt", (1, 1))
    assert core.rescan() == {}
    assert frames == [] and core.seq == 0


def test_external_changes_get_one_frame_and_the_changed_map(project: Path) -> None:
    core, frames, _l = make(project)
    (project / "notes.txt").rename(project / "moved.txt")
    (project / "index.html").unlink()
    (project / "scenes" / "a.pix3scene").write_text(SCENE + "# agent\n")
    changed = core.rescan()
    assert changed == {
        "index.html": None,
        "moved.txt": sha("notes"),
        "notes.txt": None,
        "scenes/a.pix3scene": sha(SCENE + "# agent\n"),
    }
    assert len(frames) == 1 and frames[0]["seq"] == 1 == core.seq
    assert all(e["author"] == "external" for e in frames[0]["events"])
    assert "writerId" not in frames[0]


# -- writes ------------------------------------------------------------------------------------


def test_put_conditions(project: Path) -> None:
    # Create-only and If-Match preconditions, without HTTP.
    core, _frames, _l = make(project)
    reply = core.put_bytes("scenes/b.pix3scene", SCENE.encode(), create_only=True)
    assert reply["sha256"] == sha(SCENE) and reply["size"] == len(SCENE) and reply["seq"] == 1
    status, err, body = code(lambda: core.put_bytes("scenes/b.pix3scene", b"x", create_only=True))
    assert (status, err, body["path"], body["currentHash"]) == (412, "exists", "scenes/b.pix3scene", sha(SCENE))
    status, err, body = code(lambda: core.put_bytes("scenes/b.pix3scene", b"x", if_match=[sha("other")]))
    assert (status, err, body["currentHash"]) == (412, "base_mismatch", sha(SCENE))
    assert body["message"] == "scenes/b.pix3scene changed since the base you edited."
    status, err, body = code(lambda: core.put_bytes("new.txt", b"x", if_match=["*"]))
    assert (status, err, body["message"], body["currentHash"]) == (
        412,
        "base_mismatch",
        "new.txt does not exist.",
        None,
    )
    assert (project / "scenes" / "b.pix3scene").read_text() == SCENE
    assert core.put_bytes("scenes/b.pix3scene", b"v2", if_match=["x", sha(SCENE)])["sha256"] == sha("v2")
    assert code(lambda: core.put_bytes("scenes", b"x"))[:2] == (409, "not_a_file")
    assert code(lambda: core.put_bytes("notes.txt/x", b"x"))[:2] == (409, "not_a_directory")
    assert sorted(os.listdir(project / ".pix3" / "tmp")) == []


def test_put_keeps_the_mode_and_identical_bytes_bump_seq_without_a_frame(project: Path) -> None:
    os.chmod(project / "notes.txt", 0o751)
    core, frames, _l = make(project)
    core.put_bytes("notes.txt", b"new notes")
    assert os.stat(project / "notes.txt").st_mode & 0o7777 == 0o751
    assert len(frames) == 1
    reply = core.put_bytes("notes.txt", b"new notes")
    assert reply["seq"] == 2 == core.seq and len(frames) == 1


def test_put_creates_parents_with_events(project: Path) -> None:
    core, frames, _l = make(project)
    core.put_bytes("a/b/c.txt", b"c", writer=None)
    assert [(e["op"], e["path"], e["kind"]) for e in frames[-1]["events"]] == [
        ("create", "a", "dir"),
        ("create", "a/b", "dir"),
        ("create", "a/b/c.txt", "file"),
    ]


def test_writer_checks(project: Path) -> None:
    core, frames, _l = make(project)
    core.put_bytes("a.txt", b"a", writer="anyone")  # before any claim every caller may write
    snapshot = core.claim("tab-a")
    assert snapshot["writerId"] == "tab-a" and snapshot["hashes"]["a.txt"] == sha("a")
    status, err, body = code(lambda: core.put_bytes("a.txt", b"b", writer="tab-b"))
    assert (status, err, body["writerId"]) == (409, "writer_superseded", "tab-a")
    assert code(lambda: core.mkdir("d", None))[:2] == (409, "writer_superseded")
    core.put_bytes("a.txt", b"c", writer="tab-a")
    assert frames[-1]["writerId"] == "tab-a"
    assert code(lambda: core.claim("bad id!"))[:2] == (400, "bad_writer")
    assert (project / "a.txt").read_bytes() == b"c"


def test_mkdir_delete_move(project: Path) -> None:
    core, frames, _l = make(project)
    assert core.mkdir("a/b", None) == {"path": "a/b", "created": True, "seq": 1}
    assert core.mkdir("a/b", None) == {"path": "a/b", "created": False, "seq": 1}
    assert code(lambda: core.mkdir("notes.txt", None))[:2] == (409, "exists")
    core.put_bytes("a/b/f.txt", b"f")
    assert code(lambda: core.delete("a", False, None))[:2] == (409, "not_empty")
    assert code(lambda: core.delete("missing", False, None))[:2] == (404, "not_found")
    assert code(lambda: core.move("a", "a/b/c", False, None))[:2] == (400, "bad_move")
    assert code(lambda: core.move("a", "a", False, None))[:2] == (400, "bad_move")
    assert code(lambda: core.move("nope", "x", False, None))[:2] == (404, "not_found")
    assert code(lambda: core.move("index.html", "notes.txt", False, None))[2]["message"] == "notes.txt already exists."
    assert code(lambda: core.move("a", "notes.txt", True, None))[2]["message"] == (
        "notes.txt exists; only a file may overwrite a file."
    )
    reply = core.move("index.html", "notes.txt", True, None)
    assert reply == {"from": "index.html", "to": "notes.txt", "kind": "file", "sha256": sha("<html></html>"), "seq": 3}
    assert [(e["op"], e["path"]) for e in frames[-1]["events"]] == [("delete", "index.html"), ("modify", "notes.txt")]
    reply = core.move("notes.txt", "deep/er/n.txt", False, None)
    ops = [(e["op"], e["path"], e.get("from")) for e in frames[-1]["events"]]
    assert ops == [("create", "deep", None), ("create", "deep/er", None), ("rename", "deep/er/n.txt", "notes.txt")]
    assert core.delete("a", True, None)["kind"] == "dir"
    assert not (project / "a").exists()
    assert "a/b/f.txt" not in core.table


def test_delete_of_a_linked_tree_removes_the_link_not_its_target(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    (project / "d").mkdir()
    os.symlink(outside, project / "d" / "link")
    core, _f, _l = make(project)
    core.delete("d", True, None)
    assert (outside / "keep.txt").read_text() == "keep"


def test_hashes(project: Path, tmp_path: Path) -> None:
    os.symlink(project / "notes.txt", project / "ln")
    core, _f, _l = make(project)
    reply = core.hashes(["notes.txt", "missing.txt", "scenes", "notes.txt/x"])
    assert reply == {
        "hashes": {"notes.txt": sha("notes"), "missing.txt": None, "scenes": None, "notes.txt/x": None},
        "seq": 0,
    }
    assert code(lambda: core.hashes(["ln"]))[:2] == (403, "symlink")


def test_read_whole_and_large(project: Path) -> None:
    core, _f, _l = make(project)
    read = core.read("scenes/a.pix3scene")
    assert (read.data, read.sha256, read.content_type) == (SCENE.encode(), sha(SCENE), "text/yaml; charset=utf-8")
    big = os.urandom(9 * 1024 * 1024)
    (project / "big.bin").write_bytes(big)
    read = core.read("big.bin")
    assert read.data is None and read.fd is not None and read.sha256 == sha(big) and read.size == len(big)
    read.close()
    assert code(lambda: core.read("scenes"))[:2] == (400, "not_a_file")


# -- changeset ---------------------------------------------------------------------------------


def test_changeset_is_one_frame_and_journals_editor(project: Path) -> None:
    # A changeset is one seq and one frame, and every file is journaled `editor`.
    core, frames, _l = make(project)
    core.claim("tab-a")
    entries = parse_changeset(
        {
            "files": [
                {"path": "scenes/a.pix3scene", "text": "new", "ifMatch": f'"{sha(SCENE)}"'},
                {"path": "prefabs/p.prefab", "text": "p", "createOnly": True},
            ]
        }
    )
    reply = run_changeset(core, entries, "tab-a")
    assert reply == {
        "seq": 1,
        "files": [
            {"path": "scenes/a.pix3scene", "sha256": sha("new"), "size": 3, "seq": 1},
            {"path": "prefabs/p.prefab", "sha256": sha("p"), "size": 1, "seq": 1},
        ],
    }
    assert len(frames) == 1 and frames[0]["writerId"] == "tab-a"
    file_events = [(e["op"], e["path"], e["author"]) for e in frames[0]["events"] if e["kind"] == "file"]
    assert file_events == [("create", "prefabs/p.prefab", "editor"), ("modify", "scenes/a.pix3scene", "editor")]
    assert os.listdir(project / ".pix3" / "tx") == []
    history = core.history_entries("scenes/a.pix3scene")["entries"]
    assert [(e["author"], e["sha256"]) for e in history] == [("editor", sha("new")), ("external", sha(SCENE))]


def test_changeset_refusals_write_nothing(project: Path) -> None:
    # Refused changesets write nothing.
    core, frames, _l = make(project)
    stale = parse_changeset(
        {
            "files": [
                {"path": "new.txt", "text": "n"},
                {"path": "scenes/a.pix3scene", "text": "x", "ifMatch": '"' + sha("no") + '"'},
            ]
        }
    )
    status, err, body = code(lambda: run_changeset(core, stale, None))
    assert (status, err, body["path"], body["currentHash"]) == (412, "base_mismatch", "scenes/a.pix3scene", sha(SCENE))
    exists = parse_changeset(
        {"files": [{"path": "new.txt", "text": "n"}, {"path": "notes.txt", "text": "x", "createOnly": True}]}
    )
    status, err, body = code(lambda: run_changeset(core, exists, None))
    assert (status, err, body["path"]) == (412, "exists", "notes.txt")
    assert not (project / "new.txt").exists() and frames == [] and core.seq == 0


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({}, 400, "`files` must be a non-empty array."),
        ({"files": []}, 400, "`files` must be a non-empty array."),
        ({"files": [{"path": f"f{i}", "text": ""} for i in range(1001)]}, 413, "At most 1000 files."),
        ({"files": ["x"]}, 400, "files[0] is not an object."),
        ({"files": [{"path": "a", "text": "1"}, {"path": "a", "text": "2"}]}, 400, "a appears twice in one changeset."),
        ({"files": [{"path": "a"}]}, 400, "files[0] needs exactly one of `text` or `base64`."),
        (
            {"files": [{"path": "a", "text": "x", "base64": "eA=="}]},
            400,
            "files[0] needs exactly one of `text` or `base64`.",
        ),
        ({"files": [{"path": "a", "text": "x", "ifMatch": 3}]}, 400, "files[0].ifMatch must be a string."),
        ({"files": [{"path": "a", "text": "x", "ifMatch": ""}]}, 400, "files[0].ifMatch must be a string."),
    ],
)
def test_changeset_validation(body: dict[str, Any], status: int, message: str) -> None:
    with pytest.raises(FileError) as caught:
        parse_changeset(body)
    assert (http_error(caught.value).status, caught.value.message) == (status, message)


def test_changeset_bad_path_names_the_entry() -> None:
    with pytest.raises(FileError) as caught:
        parse_changeset({"files": [{"path": "ok", "text": ""}, {"path": "../x", "text": ""}]})
    assert caught.value.extra["field"] == "files[1].path"


class Boom(Exception):
    pass


@pytest.mark.parametrize("point", ["changeset:renamed:1", "changeset:renamed:2"])
def test_fault_during_renames_rolls_back(project: Path, point: str) -> None:
    # A fault after the first or the second rename undoes what was renamed (the second entry is a create).
    def fault(at: str) -> None:
        if at == point:
            raise Boom(at)

    os.chmod(project / "scenes" / "a.pix3scene", 0o640)
    core, frames, _l = make(project, fault=fault)
    revision = core.revision
    entries = parse_changeset(
        {"files": [{"path": "scenes/a.pix3scene", "text": "new"}, {"path": "created.txt", "text": "c"}]}
    )
    with pytest.raises(Boom):
        run_changeset(core, entries, None)
    assert (project / "scenes" / "a.pix3scene").read_text() == SCENE
    assert os.stat(project / "scenes" / "a.pix3scene").st_mode & 0o7777 == 0o640
    assert not (project / "created.txt").exists()
    assert core.revision == revision and frames == []
    assert os.listdir(project / ".pix3" / "tx") == []


def test_tx_without_intent_is_discarded(project: Path) -> None:
    # A changeset folder without an intent is discarded at start; the files are untouched.
    tx = project / ".pix3" / "tx" / "1700000000000-abcdefabcdef"
    (tx / "new").mkdir(parents=True)
    (tx / "new" / "0").write_text("staged")
    _core, _frames, logs = make(project)
    assert any("no readable intent" in line for line in logs)
    assert (project / "scenes" / "a.pix3scene").read_text() == SCENE
    assert not tx.exists()


def test_committed_tx_is_cleaned_up_and_journaled(project: Path) -> None:
    tx = project / ".pix3" / "tx" / "1700000000000-abcdefabcdef"
    tx.mkdir(parents=True)
    intent = {
        "id": tx.name,
        "files": [{"path": "scenes/a.pix3scene", "sha256": sha(SCENE), "old": "absent"}],
        "state": "committed",
    }
    (tx / "intent.json").write_text(json.dumps(intent))
    core, _frames, logs = make(project)
    assert any(line.endswith(": committed; cleaned up") for line in logs)
    assert not tx.exists()
    assert [e["author"] for e in core.history_entries("scenes/a.pix3scene")["entries"]] == ["editor"]


def test_a_planted_temp_name_cannot_stop_the_start(project: Path) -> None:
    """A temp named with a pid no process can have (`kill` cannot even take the number) is a
    leftover like any other: swept, and the server starts."""
    tmp = project / ".pix3" / "tmp"
    tmp.mkdir(parents=True)
    (tmp / "put-99999999999999999999-0123456789abcdef").write_text("x")
    make(project)
    assert os.listdir(tmp) == []


def test_recovery_settles_only_what_it_wrote(project: Path, tmp_path: Path) -> None:
    """Names and intents read from `.pix3/tx` are checked before use (docs/devserver-files.md,
    "Links in .pix3"): a folder not named like a changeset and a link named like one are left
    alone; an intent whose id is not its folder's, or whose sha is not a sha256, is discarded."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "new").mkdir(parents=True)
    (elsewhere / "new" / "0").write_text("kept")
    tx = project / ".pix3" / "tx"
    (tx / "junk").mkdir(parents=True)
    (tx / "1700000000000-aaaaaaaaaaaa").symlink_to(elsewhere, target_is_directory=True)
    for name, intent in (
        ("1700000000000-bbbbbbbbbbbb", {"id": "1700000000000-cccccccccccc", "state": "committed", "files": []}),
        ("1700000000000-dddddddddddd", {"id": "1700000000000-dddddddddddd", "state": "prepared",
                                        "files": [{"path": "scenes/a.pix3scene", "sha256": "../x", "old": "absent"}]}),
    ):  # fmt: skip
        (tx / name).mkdir()
        (tx / name / "intent.json").write_text(json.dumps(intent))
    _core, _frames, logs = make(project)
    assert sorted(os.listdir(tx)) == ["1700000000000-aaaaaaaaaaaa", "junk"]
    assert (elsewhere / "new" / "0").read_text() == "kept"
    assert (project / "scenes" / "a.pix3scene").read_text() == SCENE
    assert any("/tx/junk is not named like a changeset; left alone" in line for line in logs), logs
    assert any("1700000000000-aaaaaaaaaaaa is a symbolic link; left alone" in line for line in logs), logs
    assert sum("no readable intent" in line for line in logs) == 2


# -- history ---------------------------------------------------------------------------------


def test_startup_snapshot_and_versions(project: Path) -> None:
    # The start-up snapshot journals each scene once as `external`; later versions come newest first.
    core, _frames, _l = make(project)
    assert [e["author"] for e in core.history_entries("scenes/a.pix3scene")["entries"]] == ["external"]
    assert core.history_entries("notes.txt") == {"entries": []}
    core.put_bytes("scenes/a.pix3scene", b"V2")
    (project / "scenes" / "a.pix3scene").write_text("V3")
    core.rescan()
    entries = core.history_entries("scenes/a.pix3scene")["entries"]
    assert [(e["author"], e["sha256"]) for e in entries] == [
        ("external", sha("V3")),
        ("editor", sha("V2")),
        ("external", sha(SCENE)),
    ]
    v2 = entries[1]
    assert re.match(r"^\d{13}-[0-9a-f]{8}$", v2["id"]) and v2["id"].endswith(sha("V2")[:8])
    assert (project / ".pix3" / "history" / "scenes" / "a.pix3scene" / v2["id"]).read_bytes() == b"V2"
    assert core.history_version("scenes/a.pix3scene", v2["id"]) == (b"V2", sha("V2"))
    assert code(lambda: core.history_version("scenes/a.pix3scene", "0000000000000-deadbeef"))[2]["message"] == (
        "No version 0000000000000-deadbeef of scenes/a.pix3scene."
    )


def test_record_rejected_draft(project: Path) -> None:
    # A superseded tab may record a rejected draft; any other author is refused.
    core, _frames, _l = make(project)
    core.claim("tab-b")
    entry = core.record("scenes/a.pix3scene", "draft", "rejected-draft", "merge lost")
    assert {k: entry[k] for k in ("path", "author", "sha256", "size", "note")} == {
        "path": "scenes/a.pix3scene",
        "author": "rejected-draft",
        "sha256": sha("draft"),
        "size": 5,
        "note": "merge lost",
    }
    assert core.history_entries("scenes/a.pix3scene")["entries"][0] == entry
    assert (project / "scenes" / "a.pix3scene").read_text() == SCENE
    assert code(lambda: core.record("scenes/a.pix3scene", "x", "editor", None))[:2] == (400, "bad_author")
    assert code(lambda: core.record("notes.txt", "x", "rejected-draft", None))[:2] == (400, "not_journaled")
    assert code(lambda: core.record("scenes/a.pix3scene", 3, "rejected-draft", None))[:2] == (400, "bad_request")
    assert code(lambda: core.record("scenes/a.pix3scene", "x", "rejected-draft", "n" * 2001))[:2] == (
        400,
        "bad_request",
    )
    assert "note" not in core.record("scenes/a.pix3scene", "y", "rejected-draft", "")


def test_restore(project: Path) -> None:
    # Restore: the writer and If-Match are checked; the frame says `external` without a writer.
    core, frames, _l = make(project)
    old_id = core.history_entries("scenes/a.pix3scene")["entries"][0]["id"]
    core.put_bytes("scenes/a.pix3scene", b"V2", writer="tab-a")
    core.claim("tab-a")
    assert code(lambda: core.restore("scenes/a.pix3scene", old_id, None, "tab-b"))[:2] == (409, "writer_superseded")
    status, err, body = code(lambda: core.restore("scenes/a.pix3scene", old_id, [sha(SCENE)], "tab-a"))
    assert (status, err, body["currentHash"]) == (412, "base_mismatch", sha("V2"))
    assert code(lambda: core.restore("scenes/a.pix3scene", 7, None, "tab-a"))[:2] == (400, "bad_request")
    reply = core.restore("scenes/a.pix3scene", old_id, [sha("V2")], "tab-a")
    assert reply == {"path": "scenes/a.pix3scene", "sha256": sha(SCENE), "size": len(SCENE), "seq": core.seq}
    frame = frames[-1]
    assert frame["seq"] == reply["seq"] and "writerId" not in frame
    assert frame["events"] == [
        {"op": "modify", "path": "scenes/a.pix3scene", "kind": "file", "sha256": sha(SCENE), "author": "external"}
    ]
    entries = core.history_entries("scenes/a.pix3scene")["entries"]
    assert [e["author"] for e in entries] == ["restore", "editor", "external"]
    assert entries[0]["note"] == f"version {old_id}"
    assert core.rescan() == {}


def test_restart_snapshot_only_when_changed(project: Path) -> None:
    # A restart journals a file only when it changed between the two runs.
    core, _f, _l = make(project)
    make(project)
    assert len(core.history_entries("scenes/a.pix3scene")["entries"]) == 1
    (project / "scenes" / "a.pix3scene").write_text("between lifetimes")
    core, _f, _l = make(project)
    assert [e["author"] for e in core.history_entries("scenes/a.pix3scene")["entries"]] == ["external", "external"]


def test_retention_keeps_200(project: Path) -> None:
    # 205 versions keep the newest 200; the dropped versions' bytes are deleted.
    clock = Clock()
    core, _f, _l = make(project, clock_ms=clock)
    ids = [core.history.record("scenes/v.pix3scene", f"v{n}".encode(), "editor")["id"] for n in range(205)]
    entries = core.history_entries("scenes/v.pix3scene")["entries"]
    assert len(entries) == 200 and entries[0]["sha256"] == sha("v204")
    assert entries[-1]["sha256"] == sha("v5")
    assert code(lambda: core.history_version("scenes/v.pix3scene", ids[0]))[:2] == (404, "not_found")
    folder = project / ".pix3" / "history" / "scenes" / "v.pix3scene"
    assert not (folder / ids[0]).exists() and (folder / ids[5]).exists()
    assert len(os.listdir(folder)) == 201


def test_retention_by_age(project: Path) -> None:
    # Versions older than 7 days go, except the newest one.
    clock = Clock()
    core, _f, _l = make(project, clock_ms=clock)
    core.history.record("scenes/a.pix3scene", b"second", "editor")
    clock.now += 7 * 24 * 3600 * 1000 + 1
    core.history.record("scenes/a.pix3scene", b"second", "editor")
    assert len(core.history_entries("scenes/a.pix3scene")["entries"]) == 2
    core.history.record("scenes/a.pix3scene", b"third", "editor")
    assert [e["sha256"] for e in core.history_entries("scenes/a.pix3scene")["entries"]] == [sha("third")]


def test_torn_index_lines_are_skipped(project: Path) -> None:
    core, _f, _l = make(project)
    index = project / ".pix3" / "history" / "scenes" / "a.pix3scene" / "index.jsonl"
    with index.open("ab") as handle:
        handle.write(b'{"id":"17000')
    assert len(core.history_entries("scenes/a.pix3scene")["entries"]) == 1


def test_a_link_raced_in_after_the_check_is_still_not_followed(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The lstat checks are not locks; the fd walk with O_NOFOLLOW is what keeps writes and reads inside.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    os.symlink(outside, project / "out")
    core, _frames, _logs = make(project)
    monkeypatch.setattr("pix3net.devserver.files._filecore.resolve", lambda *_a, **_k: ("file", None))
    monkeypatch.setattr("pix3net.devserver.files._filecore.missing_ancestors", lambda *_a: [])
    assert code(lambda: core.read("out/secret.txt"))[:2] == (403, "symlink")
    assert code(lambda: core.put_bytes("out/secret.txt", b"pwned"))[:2] == (403, "symlink")
    assert code(lambda: core.delete("out/secret.txt", False, None))[:2] == (403, "symlink")
    assert code(lambda: core.move("notes.txt", "out/n.txt", True, None))[:2] == (403, "symlink")
    assert sorted(os.listdir(outside)) == ["secret.txt"] and (outside / "secret.txt").read_text() == "secret"


def test_every_kind_of_refusal_has_one_status() -> None:
    """The routes' table gives each of the core's kinds of refusal its status (a new kind without
    one would answer 500)."""
    import pix3net.devserver.files as files

    kinds = {k for k in vars(files).values() if isinstance(k, type) and issubclass(k, FileError) and k is not FileError}
    assert set(STATUS) == kinds
    assert sorted(STATUS.values()) == [400, 403, 404, 409, 412, 413, 503]
    answer = http_error(FileConflict("exists", "a exists.", path="a").with_extra(currentHash=None))
    assert (answer.status, answer.body()) == (
        409,
        {"error": "exists", "message": "a exists.", "path": "a", "currentHash": None},
    )
