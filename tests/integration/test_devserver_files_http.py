"""The file API over real HTTP: httpx against hypercorn serving the routes (docs/devserver-files.md)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
import trio.testing

from tests.support.file_api import Harness, running

SCENE = "root:\n  - id: a\n    type: Group2D\n"
API = "/__pix3/api"


def sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "index.html").write_text("<html></html>")
    (root / "a.txt").write_text("a")
    return root


@pytest.fixture
async def server(project: Path) -> AsyncIterator[Harness]:
    async with running(project) as harness:
        yield harness


@pytest.fixture
async def client(server: Harness) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server.url, headers={"X-Pix3": "1"}, timeout=30) as http:
        yield http


def writer(tab: str | None = None, mutation: str | None = None) -> dict[str, str]:
    headers = {}
    if tab is not None:
        headers["X-Pix3-Writer"] = tab
    if mutation is not None:
        headers["X-Mutation-Id"] = mutation
    return headers


async def frames(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = (await client.get("/__test/frames")).json()
    return result


async def frames_before_a_marker(client: httpx.AsyncClient, project: Path) -> list[dict[str, Any]]:
    """Every frame so far, once the watcher has handled every change made before this call.

    An outside write is the marker: inotify delivers in order and batches run one at a time, so
    when the marker's frame is out, an echo of earlier writes would be out too. The marker's
    frame (the marker alone, else an earlier change leaked into it) is left out."""
    (project / "marker.txt").write_text("marker")
    with trio.fail_after(10):
        while True:
            seen = await frames(client)
            if any(e["path"] == "marker.txt" for f in seen for e in f["events"]):
                break
            await trio.sleep(0.05)
    *before, marker = seen
    assert [e["path"] for e in marker["events"]] == ["marker.txt"], marker
    return before


def error(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]


async def test_put_create_only_etag_and_preconditions(client: httpx.AsyncClient, project: Path) -> None:
    # A create-only PUT and its ETag; a second create-only (412 exists) and a stale If-Match
    # (412 base_mismatch) leave the file as it was.
    url = f"{API}/file?path=scenes/a.pix3scene"
    created = await client.put(url, content=SCENE, headers={"If-None-Match": "*"})
    assert created.status_code == 200
    body = created.json()
    assert list(body) == ["path", "sha256", "size", "mtime", "seq"]
    assert body["sha256"] == sha(SCENE) and body["path"] == "scenes/a.pix3scene" and body["size"] == len(SCENE)
    assert created.headers["content-type"] == "application/json; charset=utf-8"
    assert created.headers["cache-control"] == "no-store"
    got = await client.get(url)
    assert got.headers["etag"] == f'"{sha(SCENE)}"' and got.text == SCENE
    again = await client.put(url, content="x", headers={"If-None-Match": "*"})
    assert error(again) == (412, "exists")
    stale = await client.put(url, content="x", headers={"If-Match": f'"{sha("other")}"'})
    assert error(stale) == (412, "base_mismatch") and stale.json()["currentHash"] == sha(SCENE)
    assert (project / "scenes" / "a.pix3scene").read_text() == SCENE
    weak = await client.put(url, content="y", headers={"If-Match": f'"nope", W/"{sha(SCENE)}"'})
    assert weak.status_code == 200


async def test_file_read_headers_ranges_and_conditions(client: httpx.AsyncClient, project: Path) -> None:
    (project / "t.json").write_text("0123456789")
    url = f"{API}/file?path=t.json"
    got = await client.get(url)
    assert got.status_code == 200
    for name, value in {
        "etag": f'"{sha("0123456789")}"',
        "accept-ranges": "bytes",
        "cache-control": "private, no-cache",
        "x-content-type-options": "nosniff",
        "content-security-policy": "sandbox",  # a file opened as a page runs no script, on no origin
        "content-type": "application/json; charset=utf-8",
        "content-length": "10",
    }.items():
        assert got.headers[name] == value, name
    head = await client.head(url)
    assert head.status_code == 200 and head.content == b"" and head.headers["content-length"] == "10"
    assert head.headers["etag"] == got.headers["etag"]
    for spec, status, content, content_range in [
        ("bytes=2-4", 206, b"234", "bytes 2-4/10"),
        ("bytes=7-", 206, b"789", "bytes 7-9/10"),
        ("bytes=-3", 206, b"789", "bytes 7-9/10"),
        ("bytes=-30", 206, b"0123456789", "bytes 0-9/10"),
        ("bytes=8-100", 206, b"89", "bytes 8-9/10"),
        ("bytes=0-1,4-5", 200, b"0123456789", None),
        ("items=0-1", 200, b"0123456789", None),
        ("bytes=10-", 416, b"", "bytes */10"),
        ("bytes=-0", 416, b"", "bytes */10"),
        ("bytes=5-2", 416, b"", "bytes */10"),
    ]:
        ranged = await client.get(url, headers={"Range": spec})
        assert (ranged.status_code, ranged.content, ranged.headers.get("content-range")) == (
            status,
            content,
            content_range,
        ), spec
    for tags in ("*", f'"{sha("0123456789")}"', f'W/"x", "{sha("0123456789")}"'):
        cached = await client.get(url, headers={"If-None-Match": tags})
        assert cached.status_code == 304 and cached.content == b"" and cached.headers["etag"] == got.headers["etag"]
    assert (await client.get(url, headers={"If-None-Match": '"other"'})).status_code == 200
    assert error(await client.get(f"{API}/file?path=nope.txt")) == (404, "not_found")
    (project / "dir").mkdir()
    not_file = await client.get(f"{API}/file?path=dir")
    assert error(not_file) == (400, "not_a_file") and not_file.json()["message"] == "dir is not a file."
    assert error(await client.get(f"{API}/file")) == (400, "bad_path")


async def test_large_file_is_streamed_with_ranges(client: httpx.AsyncClient, project: Path) -> None:
    data = os.urandom(9 * 1024 * 1024 + 17)
    (project / "big.bin").write_bytes(data)
    got = await client.get(f"{API}/file?path=big.bin")
    assert got.content == data and got.headers["etag"] == f'"{sha(data)}"'
    assert got.headers["content-type"] == "application/octet-stream"
    tail = await client.get(f"{API}/file?path=big.bin", headers={"Range": "bytes=-100"})
    assert tail.status_code == 206 and tail.content == data[-100:]
    middle = await client.get(f"{API}/file?path=big.bin", headers={"Range": "bytes=5000000-5000099"})
    assert middle.content == data[5000000:5000100]


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("../etc/passwd", 400, "bad_path"),
        ("/etc/passwd", 400, "bad_path"),
        ("%2e%2e/etc/passwd", 400, "bad_path"),
        ("%2E%2E%2Fetc%2Fpasswd", 400, "bad_path"),
        ("a/%2e%2e/%2e%2e/etc/passwd", 400, "bad_path"),
        ("..%5C..%5Cetc%5Cpasswd", 400, "bad_path"),
        ("C:/Windows/win.ini", 400, "bad_path"),
        ("C%3A%5Cx", 400, "bad_path"),
        ("a.txt%00.png", 400, "bad_path"),
        ("a/b:c", 400, "bad_path"),
        ("a.txt:stream", 400, "bad_path"),
        ("./a.txt", 400, "bad_path"),
        ("a.txt/", 400, "bad_path"),
        (".pix3/dev.json", 403, "reserved_path"),
        (".PIX3/Local/keys.json", 403, "reserved_path"),
        (".pix3/history/a.pix3scene/index.jsonl", 403, "reserved_path"),
    ],
)
async def test_traversal_in_every_spelling(client: httpx.AsyncClient, query: str, status: int, code: str) -> None:
    # A path that climbs out of the project, is absolute or names a private file is refused.
    assert error(await client.get(f"{API}/file?path={query}")) == (status, code)
    assert error(await client.put(f"{API}/file?path={query}", content="x")) == (status, code)


async def test_query_is_decoded_exactly_once(client: httpx.AsyncClient, project: Path) -> None:
    # `%252e%252e` decodes to the literal folder name `%2e%2e`, inside the root.
    assert error(await client.get(f"{API}/file?path=%252e%252e/etc/passwd")) == (404, "not_found")
    assert (await client.put(f"{API}/file?path=%252e%252e/passwd", content="x")).status_code == 200
    assert (project / "%2e%2e" / "passwd").read_text() == "x"


async def test_symlinks_inside_and_outside_are_refused(
    client: httpx.AsyncClient, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    os.symlink(outside, project / "out")
    os.symlink(project / "a.txt", project / "in.txt")
    os.symlink(outside / "secret.txt", project / "secret-link.txt")
    for wire in ("out/secret.txt", "in.txt", "secret-link.txt", "out/new.txt"):
        got = await client.get(f"{API}/file?path={wire}")
        assert error(got) == (403, "symlink"), wire
        put = await client.put(f"{API}/file?path={wire}", content="pwned")
        assert error(put) == (403, "symlink"), wire
    for route, body in [
        ("mkdir", {"path": "out/d"}),
        ("delete", {"path": "in.txt"}),
        ("move", {"from": "a.txt", "to": "out/a.txt"}),
        ("changeset", {"files": [{"path": "out/c.txt", "text": "x"}]}),
    ]:
        assert error(await client.post(f"{API}/{route}", json=body)) == (403, "symlink"), route
    assert error(await client.post(f"{API}/hash", json={"paths": ["secret-link.txt"]})) == (403, "symlink")
    assert sorted(os.listdir(outside)) == ["secret.txt"] and (outside / "secret.txt").read_text() == "secret"
    assert (project / "a.txt").read_text() == "a"
    paths = [f["path"] for f in (await client.get(f"{API}/manifest")).json()["files"]]
    assert "in.txt" not in paths and "out" not in paths


async def test_put_keeps_the_mode(client: httpx.AsyncClient, project: Path) -> None:
    os.chmod(project / "a.txt", 0o750)
    assert (await client.put(f"{API}/file?path=a.txt", content="new")).status_code == 200
    assert os.stat(project / "a.txt").st_mode & 0o7777 == 0o750
    assert (project / "a.txt").read_text() == "new"
    assert os.listdir(project / ".pix3" / "tmp") == []


async def test_concurrent_conditional_puts_one_wins(client: httpx.AsyncClient, project: Path) -> None:
    base = sha("a")
    results: list[httpx.Response] = []

    async def put(n: int) -> None:
        results.append(
            await client.put(f"{API}/file?path=a.txt", content=f"writer {n}", headers={"If-Match": f'"{base}"'})
        )

    async with trio.open_nursery() as nursery:
        for n in range(8):
            nursery.start_soon(put, n)
    winners = [r for r in results if r.status_code == 200]
    assert len(winners) == 1
    assert sorted(error(r) for r in results if r.status_code != 200) == [(412, "base_mismatch")] * 7
    assert sha((project / "a.txt").read_bytes()) == winners[0].json()["sha256"]


async def test_move_replay_with_mutation_id(client: httpx.AsyncClient, project: Path) -> None:
    # The same move twice under one X-Mutation-Id: the second answer is a replay.
    body = {"from": "a.txt", "to": "b.txt"}
    first = await client.post(f"{API}/move", json=body, headers=writer(mutation="m-1"))
    second = await client.post(f"{API}/move", json=body, headers=writer(mutation="m-1"))
    assert first.status_code == second.status_code == 200
    assert "x-mutation-replayed" not in first.headers and second.headers["x-mutation-replayed"] == "true"
    assert (
        first.json() == second.json() == {"from": "a.txt", "to": "b.txt", "kind": "file", "sha256": sha("a"), "seq": 1}
    )
    assert (project / "b.txt").read_text() == "a" and not (project / "a.txt").exists()
    reused = await client.post(f"{API}/mkdir", json={"path": "x"}, headers=writer(mutation="m-1"))
    assert error(reused) == (422, "mutation_id_reused")
    assert reused.json()["message"] == "That X-Mutation-Id was used for a different request."
    bad = await client.post(f"{API}/mkdir", json={"path": "x"}, headers=writer(mutation="bad id"))
    assert error(bad) == (400, "bad_mutation_id")
    # An error outcome is stored and replayed too.
    missing = {"from": "nope", "to": "z"}
    one = await client.post(f"{API}/move", json=missing, headers=writer(mutation="m-2"))
    (project / "nope").write_text("now it exists")
    two = await client.post(f"{API}/move", json=missing, headers=writer(mutation="m-2"))
    assert error(one) == error(two) == (404, "not_found") and two.headers["x-mutation-replayed"] == "true"


async def test_put_replay_ignores_the_body(client: httpx.AsyncClient, project: Path) -> None:
    first = await client.put(f"{API}/file?path=p.txt", content="one", headers=writer(mutation="put-1"))
    second = await client.put(f"{API}/file?path=p.txt", content="two", headers=writer(mutation="put-1"))
    assert second.headers["x-mutation-replayed"] == "true" and second.json() == first.json()
    assert (project / "p.txt").read_text() == "one"


async def test_manifest_content(client: httpx.AsyncClient, project: Path) -> None:
    # The manifest lists the project's files and nothing under node_modules, dist or .pix3.
    (project / "scenes").mkdir()
    (project / "scenes" / "a.pix3scene").write_text(SCENE)
    (project / "node_modules" / "x").mkdir(parents=True)
    (project / "node_modules" / "x" / "index.js").write_text("x")
    (project / "dist").mkdir()
    (project / "dist" / "out.js").write_text("x")
    reply = (await client.get(f"{API}/manifest")).json()
    assert list(reply) == ["revision", "seq", "files"]
    paths = [f["path"] for f in reply["files"]]
    assert "scenes/a.pix3scene" in paths and "index.html" in paths
    assert not [p for p in paths if p.startswith(("node_modules", "dist", ".pix3"))]
    assert paths == sorted(paths)


async def test_writer_frames_and_external_author(client: httpx.AsyncClient, project: Path) -> None:
    # An API write's frame names the writer and says `editor`; a write from another tab, or without a
    # writer, is refused 409; an outside write says `external` (frames observed at the emit callback).
    claim = (await client.post(f"{API}/handover/claim", json={"writerId": "tab-a"})).json()
    assert claim["writerId"] == "tab-a" and claim["hashes"]["a.txt"] == sha("a")
    put = await client.put(f"{API}/file?path=scenes/a.pix3scene", content=SCENE, headers=writer("tab-a"))
    assert put.status_code == 200
    frame = (await frames(client))[-1]
    assert frame["writerId"] == "tab-a" and frame["seq"] == put.json()["seq"]
    assert [e["author"] for e in frame["events"]] == ["editor", "editor"]
    refused = await client.put(f"{API}/file?path=a.txt", content="b", headers=writer("tab-b"))
    assert error(refused) == (409, "writer_superseded") and refused.json()["writerId"] == "tab-a"
    assert (
        refused.json()["message"] == "Another editor tab took over writing to this project; this tab is read-only now."
    )
    await client.post(f"{API}/handover/claim", json={"writerId": "tab-b"})
    assert error(await client.put(f"{API}/file?path=a.txt", content="b", headers=writer("tab-a"))) == (
        409,
        "writer_superseded",
    )
    assert error(await client.put(f"{API}/file?path=a.txt", content="b")) == (409, "writer_superseded")
    assert (project / "a.txt").read_text() == "a"
    (project / "scenes" / "a.pix3scene").write_text(SCENE + "# agent\n")
    with trio.fail_after(10):
        while True:
            external = [f for f in await frames(client) if "writerId" not in f]
            if external:
                break
            await trio.sleep(0.05)
    assert external[0]["events"] == [
        {
            "op": "modify",
            "path": "scenes/a.pix3scene",
            "kind": "file",
            "sha256": sha(SCENE + "# agent\n"),
            "author": "external",
        }
    ]


async def test_changeset_over_http(client: httpx.AsyncClient, project: Path) -> None:
    # A modify (ifMatch) and a create (createOnly): one seq, one frame, nothing left staged, the history.
    (await client.put(f"{API}/file?path=scenes/a.pix3scene", content="old")).raise_for_status()
    await client.post(f"{API}/handover/claim", json={"writerId": "tab-a"})
    count = len(await frames(client))
    reply = await client.post(
        f"{API}/changeset",
        json={
            "files": [
                {"path": "scenes/a.pix3scene", "text": "new", "ifMatch": sha("old")},
                {"path": "prefabs/p.prefab", "text": "p", "createOnly": True},
            ]
        },
        headers=writer("tab-a"),
    )
    assert reply.status_code == 200
    body = reply.json()
    seq = body["seq"]
    assert body["files"] == [
        {"path": "scenes/a.pix3scene", "sha256": sha("new"), "size": 3, "seq": seq},
        {"path": "prefabs/p.prefab", "sha256": sha("p"), "size": 1, "seq": seq},
    ]
    new_frames = (await frames_before_a_marker(client, project))[count:]
    assert len(new_frames) == 1 and new_frames[0]["seq"] == seq and new_frames[0]["writerId"] == "tab-a"
    assert os.listdir(project / ".pix3" / "tx") == []
    history = (await client.get(f"{API}/history?path=scenes/a.pix3scene")).json()["entries"]
    assert [(e["author"], e["sha256"]) for e in history] == [("editor", sha("new")), ("editor", sha("old"))]


async def test_changeset_refusals(client: httpx.AsyncClient, project: Path) -> None:
    # A stale ifMatch, a createOnly on an existing file (each names its entry) and a superseded
    # writer are refused, and nothing is written.
    stale = await client.post(
        f"{API}/changeset",
        json={"files": [{"path": "n.txt", "text": "n"}, {"path": "a.txt", "text": "x", "ifMatch": f'"{sha("b")}"'}]},
    )
    assert error(stale) == (412, "base_mismatch") and stale.json()["path"] == "a.txt"
    assert stale.json()["currentHash"] == sha("a")
    await client.post(f"{API}/handover/claim", json={"writerId": "tab-a"})
    await client.post(f"{API}/handover/claim", json={"writerId": "tab-b"})
    superseded = await client.post(
        f"{API}/changeset", json={"files": [{"path": "n.txt", "text": "n"}]}, headers=writer("tab-a")
    )
    assert error(superseded) == (409, "writer_superseded") and superseded.json()["writerId"] == "tab-b"
    assert not (project / "n.txt").exists()


async def test_changeset_base64_replay(client: httpx.AsyncClient, project: Path) -> None:
    # A base64 entry is written byte for byte, and replayed under the same X-Mutation-Id.
    body = {"files": [{"path": "bin/x.bin", "base64": base64.b64encode(b"\x00\xff\x10").decode()}]}
    first = await client.post(f"{API}/changeset", json=body, headers=writer(mutation="cs-1"))
    second = await client.post(f"{API}/changeset", json=body, headers=writer(mutation="cs-1"))
    assert first.status_code == 200 and first.content == second.content
    assert second.headers["x-mutation-replayed"] == "true"
    assert (project / "bin" / "x.bin").read_bytes() == b"\x00\xff\x10"


async def test_close_during_a_changeset(project: Path) -> None:
    # Closing while a changeset runs: accepted work completes, new work gets 503 `closed`.
    reached = threading.Event()
    release = threading.Event()

    def fault(point: str) -> None:
        if point == "changeset:staged":
            reached.set()
            release.wait(20)

    async with running(project, fault=fault) as harness, httpx.AsyncClient(base_url=harness.url, timeout=30) as http:
        replies: dict[str, httpx.Response] = {}

        async def changeset() -> None:
            replies["cs"] = await http.post(f"{API}/changeset", json={"files": [{"path": "c.txt", "text": "c"}]})

        async with trio.open_nursery() as nursery:
            nursery.start_soon(changeset)
            await trio.to_thread.run_sync(reached.wait, 20)
            nursery.start_soon(harness.store.aclose)
            await trio.testing.wait_all_tasks_blocked()  # aclose has refused new work and waits
            late = await http.put(f"{API}/file?path=late.txt", content="x")
            assert error(late) == (503, "closed")
            assert late.json()["message"] == "The dev server is shutting down; retry on the new one."
            release.set()
        assert replies["cs"].status_code == 200
        assert (project / "c.txt").read_text() == "c" and not (project / "late.txt").exists()


async def test_mkdir_delete_over_http(client: httpx.AsyncClient, project: Path) -> None:
    made = await client.post(f"{API}/mkdir", json={"path": "d/e"})
    assert made.json() == {"path": "d/e", "created": True, "seq": 1}
    assert (await client.post(f"{API}/mkdir", json={"path": "d/e"})).json()["created"] is False
    clash = await client.post(f"{API}/mkdir", json={"path": "a.txt"})
    assert error(clash) == (409, "exists") and clash.json()["message"] == "a.txt exists and is not a directory."
    assert error(await client.post(f"{API}/delete", json={"path": "d"})) == (409, "not_empty")
    # `recursive` must be exactly true
    assert error(await client.post(f"{API}/delete", json={"path": "d", "recursive": "yes"})) == (409, "not_empty")
    deleted = await client.post(f"{API}/delete", json={"path": "d", "recursive": True})
    assert deleted.json() == {"path": "d", "kind": "dir", "seq": 2}
    assert error(await client.post(f"{API}/delete", json={"path": "d"})) == (404, "not_found")


async def raw_request(url: str, head: bytes, body: bytes = b"") -> tuple[int, dict[str, Any]]:
    """One request on a plain socket: the server may answer (and close) before the body is sent,
    which an HTTP client library reports as an error of its own."""
    host, port = url.removeprefix("http://").split(":")
    stream = await trio.open_tcp_stream(host, int(port))
    raw = b""
    async with stream:
        await stream.send_all(head)
        with trio.fail_after(10):
            if body:
                with contextlib.suppress(trio.BrokenResourceError):
                    await stream.send_all(body)
            while b"\r\n\r\n" not in raw or not raw.rstrip().endswith(b"}"):
                try:
                    chunk = await stream.receive_some()
                except trio.BrokenResourceError:
                    break
                if not chunk:
                    break
                raw += chunk
    status = int(raw.split(b" ", 2)[1])
    return status, json.loads(raw.split(b"\r\n\r\n", 1)[1])


async def test_bad_bodies(client: httpx.AsyncClient, server: Harness) -> None:
    big = b'{"path":"' + b"x" * (1024 * 1024) + b'"}'
    head = f"POST {API}/mkdir HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pix3: 1\r\nContent-Length: {len(big)}\r\n\r\n"
    assert await raw_request(server.url, head.encode(), big) == (
        413,
        {"error": "too_large", "message": "Request body too large."},
    )
    for raw in (b"{", b"[1,2]", b'"x"', b"null", b"\xff\xfe"):
        malformed = await client.post(f"{API}/mkdir", content=raw)
        assert error(malformed) == (400, "bad_json") and malformed.json()["message"] == "Body must be a JSON object."
    empty = await client.post(f"{API}/mkdir", content=b"  \n")
    assert error(empty) == (400, "bad_path")
    assert error(await client.post(f"{API}/hash", json={"paths": "a.txt"})) == (400, "bad_request")
    assert error(await client.post(f"{API}/hash", json={"paths": ["a", 3]})) == (400, "bad_request")
    many = await client.post(f"{API}/hash", json={"paths": ["a.txt"] * 20001})
    assert error(many) == (413, "too_many_paths") and many.json()["message"] == "At most 20000 paths."
    bad_entry = await client.post(f"{API}/hash", json={"paths": ["a.txt", "../x"]})
    assert error(bad_entry) == (400, "bad_path") and bad_entry.json()["field"] == "paths[1]"
    assert error(await client.post(f"{API}/hash", json={"paths": [".pix3/tx"]})) == (403, "reserved_path")
    hashes = await client.post(f"{API}/hash", json={"paths": ["a.txt", "zz"]})
    assert hashes.json() == {"hashes": {"a.txt": sha("a"), "zz": None}, "seq": 0}
    # Wrong method or unknown route under /api → 404 not_found (never 405).
    for method, route in [("GET", "mkdir"), ("DELETE", "file?path=a.txt"), ("POST", "manifest"), ("PUT", "history")]:
        got = await client.request(method, f"{API}/{route}")
        assert (got.status_code, got.json()) == (404, {"error": "not_found", "message": "Not found."}), route
    assert server.store.seq == 0


async def test_put_size_limits(
    client: httpx.AsyncClient, server: Harness, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = (
        b"PUT /__pix3/api/file?path=huge.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pix3: 1\r\n"
        b"Content-Length: 2147483648\r\n\r\n"
    )
    assert await raw_request(server.url, head) == (413, {"error": "too_large", "message": "File too large."})
    # A streamed body (no Content-Length) is counted as it arrives.
    monkeypatch.setattr("pix3net.devserver.files._store.MAX_PUT_BYTES", 1000)

    chunked = b"".join(b"190\r\n" + b"x" * 400 + b"\r\n" for _ in range(4)) + b"0\r\n\r\n"
    head = (
        b"PUT /__pix3/api/file?path=streamed.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pix3: 1\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    status, body = await raw_request(server.url, head, chunked)
    assert (status, body["error"]) == (413, "too_large")
    assert not (project / "huge.bin").exists() and not (project / "streamed.bin").exists()
    assert os.listdir(project / ".pix3" / "tmp") == []


async def test_a_put_is_read_no_faster_than_it_is_written(
    server: Harness, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk slower than loopback (here 30 ms per MiB): the server reads the body at the disk's
    pace, so what the client has sent but the disk has not got stays bounded by the socket
    buffers, instead of the whole body piling up in memory."""
    from pix3net.devserver.files import _store

    written = 0
    real_write = _store._write_all

    def slow_write(fd: int, digest: Any, chunks: list[bytes]) -> None:
        nonlocal written
        time.sleep(0.03 * sum(map(len, chunks)) / (1 << 20))
        real_write(fd, digest, chunks)
        written += sum(map(len, chunks))

    monkeypatch.setattr(_store, "_write_all", slow_write)
    size, chunk = 64 << 20, b"x" * (1 << 20)
    host, port = server.url.removeprefix("http://").split(":")
    stream = await trio.open_tcp_stream(host, int(port))
    head = f"PUT {API}/file?path=big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pix3: 1\r\nContent-Length: {size}\r\n\r\n"
    await stream.send_all(head.encode())
    sent = ahead = 0
    for _ in range(size // len(chunk)):
        await stream.send_all(chunk)
        sent += len(chunk)
        ahead = max(ahead, sent - written)
    answer = await stream.receive_some()
    await stream.aclose()
    assert answer.startswith(b"HTTP/1.1 200"), answer
    assert (project / "big.bin").stat().st_size == size
    assert ahead < 24 << 20, f"{ahead >> 20} MiB were read ahead of the disk"


async def test_history_over_http(client: httpx.AsyncClient, project: Path) -> None:
    # Versions over HTTP (newest first, their bytes, 404 for an unknown id), a rejected draft, then a
    # restore whose frame says `external` without a writer.
    url = f"{API}/file?path=scenes/a.pix3scene"
    await client.put(url, content="V1")
    await client.put(url, content="V2")
    entries = (await client.get(f"{API}/history?path=scenes/a.pix3scene")).json()["entries"]
    assert [e["sha256"] for e in entries] == [sha("V2"), sha("V1")]
    version = await client.get(f"{API}/history/version?path=scenes/a.pix3scene&id={entries[1]['id']}")
    assert version.content == b"V1" and version.headers["etag"] == f'"{sha("V1")}"'
    assert version.headers["content-type"] == "text/yaml; charset=utf-8"
    head = await client.head(f"{API}/history/version?path=scenes/a.pix3scene&id={entries[1]['id']}")
    assert head.status_code == 200 and head.content == b"" and head.headers["content-length"] == "2"
    unknown = await client.get(f"{API}/history/version?path=scenes/a.pix3scene&id=0000000000000-deadbeef")
    assert unknown.status_code == 404
    assert unknown.json()["message"] == "No version 0000000000000-deadbeef of scenes/a.pix3scene."
    assert (await client.get(f"{API}/history?path=notes.txt")).json() == {"entries": []}
    record = await client.post(
        f"{API}/history/record", json={"path": "scenes/a.pix3scene", "text": "draft", "author": "rejected-draft"}
    )
    assert record.json()["author"] == "rejected-draft"
    restored = await client.post(
        f"{API}/history/restore",
        json={"path": "scenes/a.pix3scene", "id": entries[1]["id"]},
        headers={"If-Match": f'"{sha("V2")}"', "X-Mutation-Id": "r-1"},
    )
    assert restored.status_code == 200 and (project / "scenes" / "a.pix3scene").read_text() == "V1"
    assert restored.json() == {
        "path": "scenes/a.pix3scene",
        "sha256": sha("V1"),
        "size": 2,
        "seq": restored.json()["seq"],
    }
    last = (await frames(client))[-1]
    assert "writerId" not in last and last["events"][0]["author"] == "external"


async def test_claim_waits_for_the_changeset_in_flight(project: Path) -> None:
    # A claim made while a changeset runs answers after it, with the new sha; the old writer's next
    # changeset is refused.
    reached = threading.Event()
    release = threading.Event()

    def fault(point: str) -> None:
        if point == "changeset:staged":
            reached.set()
            release.wait(20)

    async with running(project, fault=fault) as harness, httpx.AsyncClient(base_url=harness.url, timeout=30) as http:
        await http.post(f"{API}/handover/claim", json={"writerId": "tab-a"})
        replies: dict[str, httpx.Response] = {}
        order: list[str] = []

        async def changeset() -> None:
            body = {"files": [{"path": "a.txt", "text": "from a"}]}
            replies["cs"] = await http.post(f"{API}/changeset", json=body, headers=writer("tab-a"))
            order.append("changeset")

        async def claim() -> None:
            replies["claim"] = await http.post(f"{API}/handover/claim", json={"writerId": "tab-b"})
            order.append("claim")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(changeset)
            await trio.to_thread.run_sync(reached.wait, 20)
            nursery.start_soon(claim)
            with trio.fail_after(10):
                while harness.store.mutex.statistics().tasks_waiting == 0:  # noqa: ASYNC110 - no event for it
                    await trio.sleep(0.01)
            assert "claim" not in replies  # queued on the write mutex behind the changeset
            release.set()
        assert order == ["changeset", "claim"] and replies["cs"].status_code == 200
        assert replies["claim"].json()["hashes"]["a.txt"] == sha("from a")
        late = await http.post(
            f"{API}/changeset", json={"files": [{"path": "a.txt", "text": "late"}]}, headers=writer("tab-a")
        )
        assert error(late) == (409, "writer_superseded")
        assert (project / "a.txt").read_text() == "from a"


async def test_a_repeat_while_in_flight_waits_for_the_first_answer(project: Path) -> None:
    # The same id and fingerprint while the first is still running: the first's answer, replayed.
    reached = threading.Event()
    release = threading.Event()
    runs: list[str] = []

    def fault(point: str) -> None:
        if point == "changeset:staged":
            runs.append(point)
            reached.set()
            release.wait(20)

    async with running(project, fault=fault) as harness, httpx.AsyncClient(base_url=harness.url, timeout=30) as http:
        replies: list[httpx.Response] = []
        body = {"files": [{"path": "c.txt", "text": "c"}]}

        async def send() -> None:
            replies.append(await http.post(f"{API}/changeset", json=body, headers=writer(mutation="same")))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(send)
            await trio.to_thread.run_sync(reached.wait, 20)
            nursery.start_soon(send)
            await trio.testing.wait_all_tasks_blocked()  # the repeat has reached the server and waits
            assert replies == []
            release.set()
        assert [r.status_code for r in replies] == [200, 200] and replies[0].content == replies[1].content
        assert [r.headers.get("x-mutation-replayed") for r in replies] == [None, "true"]
        assert runs == ["changeset:staged"]
