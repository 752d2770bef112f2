"""Pure parts of the dev server: dev.json, the public URL rule, the guard (docs/devserver.md)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pix3net.daemon import devrecord
from pix3net.devserver.app import (
    FORBIDDEN_HOST,
    FORBIDDEN_ORIGIN,
    FORBIDDEN_REMOTE,
    MISSING_X_PIX3,
    check_game,
    check_mutation,
    check_request,
    check_socket,
    editor_page_redirect,
    gate_page,
    header_map,
    is_browser_request,
    is_loopback_peer,
    parse_expect,
    parse_timeout,
    version_gate,
)
from pix3net.devserver.http import ApiError
from pix3tools.core.timestamps import iso_time


@pytest.mark.parametrize(
    ("value", "base", "expected"),
    [
        ("http://localhost:5174", "/", "http://localhost:5174/"),
        ("http://localhost:5174/", "/", "http://localhost:5174/"),
        ("http://localhost:5174", "/game/", "http://localhost:5174/game/"),
        ("http://localhost:5174/game/", "/game/", "http://localhost:5174/game/"),
        ("https://box.example/sub/", "/", "https://box.example/sub/"),
        ("ftp://x", "/", None),
        ("not a url", "/", None),
    ],
)
def test_public_url_from_env(value: str, base: str, expected: str | None) -> None:
    assert devrecord.public_url_of(value, "http://other:9/", 5173, base) == expected


@pytest.mark.parametrize(
    ("origin", "expected"),
    [
        ("http://localhost:5173", None),
        ("http://127.0.0.1:5173", None),
        ("http://[::1]:5173", None),
        ("http://127.0.0.2:5173", None),  # a loopback name of the Host rule
        ("http://127.1:5173", "http://127.1:5173/"),
        ("http://localhost:5174", "http://localhost:5174/"),
        ("https://box.example", "https://box.example/"),
        ("http://box.example:80", "http://box.example/"),
        (None, None),
        ("garbage", None),
    ],
)
def test_public_url_from_tab_origin(origin: str | None, expected: str | None) -> None:
    assert devrecord.public_url_of(None, origin, 5173) == expected


def test_record_keys_order_format_and_time() -> None:
    when = datetime(2026, 10, 10, 12, 0, 0, 123456, tzinfo=UTC)
    record = devrecord.build_record(
        port=5173,
        pid=42,
        versions={"plugin": "2.0.0-alpha.0", "runtime": None, "editorCore": None, "vite": "8.4.0"},
        started_at=iso_time(when),
        public_url="http://localhost:15999/",
    )
    assert list(record) == [
        "url",
        "editorUrl",
        "port",
        "pid",
        "versions",
        "startedAt",
        "publicUrl",
        "publicEditorUrl",
    ]
    assert record["url"] == "http://localhost:5173/"
    assert record["editorUrl"] == "http://localhost:5173/__pix3/"
    assert record["startedAt"] == "2026-10-10T12:00:00.123Z"
    assert record["publicEditorUrl"] == "http://localhost:15999/__pix3/"
    data = devrecord.encode_record(record)
    assert data.endswith(b"}\n") and b'\n  "url": ' in data


def test_readers_validity(tmp_path: Path) -> None:
    assert devrecord.read_dev_info(tmp_path) is None
    path = tmp_path / ".pix3" / "dev.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"url": "x"}))
    assert devrecord.read_dev_info(tmp_path) is None
    assert devrecord.read_url(tmp_path) == "x"  # the flush clients only need `url`
    path.write_text('{"url": "http://localhost:1/", "editorUrl": "http://localhost:1/__pix3/", "port": 1, "pid": 7}')
    info = devrecord.read_dev_info(tmp_path)
    assert info is not None and (info.url, info.editor_url, info.port, info.pid) == (
        "http://localhost:1/",
        "http://localhost:1/__pix3/",
        1,
        7,
    )
    path.write_text('{"url": "http://localhost:1/", "edi')
    assert devrecord.read_dev_info(tmp_path) is None
    assert devrecord.read_url(tmp_path) is None


def test_record_removed_only_by_its_writer(tmp_path: Path) -> None:
    record = devrecord.build_record(port=1, pid=os.getpid() + 1, versions={}, started_at="t")
    devrecord.write_record(tmp_path, record)
    assert not devrecord.remove_record_if_ours(tmp_path)
    assert (tmp_path / ".pix3" / "dev.json").exists()
    devrecord.write_record(tmp_path, {**record, "pid": os.getpid()})
    assert devrecord.remove_record_if_ours(tmp_path)
    assert not (tmp_path / ".pix3" / "dev.json").exists()


@pytest.mark.parametrize(
    "host",
    ["127.evil.example", "127.0.0.1.nip.io:5173", "localhost.evil.example", "127.1", "2130706433", "evil.example"],
)
def test_the_guard_refuses_rebinding_names(host: str) -> None:
    """The DNS-rebinding names the old `127.*` prefix rule let in (docs/devserver.md, "The Host rule")."""
    assert check_request("GET", {"host": host}, "127.0.0.1") is FORBIDDEN_HOST
    assert check_socket({"host": host}, "127.0.0.1") is FORBIDDEN_HOST


def test_the_guard_host_rule() -> None:
    for host in ("localhost:5173", "127.0.0.1", "[::1]:1", "127.8.9.10:4"):
        assert check_request("GET", {"host": host}, "127.0.0.1") is None
    assert check_request("GET", {}, "127.0.0.1") is FORBIDDEN_HOST
    # a duplicated Host reaches the guard joined with ", " (`header_map`) and is refused
    joined = header_map([(b"host", b"127.0.0.1"), (b"Host", b"127.0.0.1")])
    assert check_request("GET", joined, "127.0.0.1") is FORBIDDEN_HOST
    public = frozenset({"box.example"})
    assert check_request("GET", {"host": "box.example:443"}, "127.0.0.1", public) is None
    assert check_request("GET", {"host": "box.example"}, "127.0.0.1") is FORBIDDEN_HOST


def test_loopback_peers() -> None:
    for peer in ("127.0.0.1", "::1", "::ffff:127.0.0.1", "127.3.4.5"):
        assert is_loopback_peer(peer)
    others: tuple[str | None, ...] = ("192.168.1.5", "", None, "::ffff:10.0.0.1")
    for other in others:
        assert not is_loopback_peer(other)


def test_mutation_and_origin_rules() -> None:
    assert check_mutation(None, None, "localhost:1") is MISSING_X_PIX3
    assert check_mutation("true", None, "localhost:1") is MISSING_X_PIX3
    assert check_mutation("1", None, "localhost:1") is None
    assert check_mutation("1", "HTTP://LOCALHOST:1", "localhost:1") is None
    assert check_mutation("1", "http://evil.example", "localhost:1") is FORBIDDEN_ORIGIN
    headers = {"host": "localhost:1", "origin": "http://evil.example"}
    assert check_request("GET", headers, "127.0.0.1") is None  # reads pass the origin check
    assert check_socket(headers, "127.0.0.1") is FORBIDDEN_ORIGIN
    assert check_request("GET", {"host": "localhost:1"}, "10.0.0.2") is FORBIDDEN_REMOTE
    assert header_map([(b"X-A", b"1"), (b"x-a", b"2")]) == {"x-a": "1, 2"}


FETCH = {"sec-fetch-site": "same-origin", "sec-fetch-mode": "cors"}


def test_the_game_s_name_refuses_a_browser_all_but_the_game() -> None:
    """Under 127.0.0.1 (the game's name) a browser's request may only load the game; the editor's
    name, a public name and any client without browser fields are not concerned."""
    game = {"host": "127.0.0.1:5173", **FETCH}
    for method, path in [
        ("GET", "/__pix3/api/hello"),
        ("GET", "/__pix3/api/file"),
        ("PUT", "/__pix3/api/file"),
        ("POST", "/__pix3/api/flush"),
        ("GET", "/__pix3/ws"),
        ("GET", "/__pix3/api/scenes"),
        ("POST", "/__pix3/api/scene"),
        ("GET", "/__pix3/page/../api/hello"),
        ("GET", "/__pix3/page/"),
        ("GET", "/__pix3/game/x"),
        ("GET", "/__pix3/editor.css"),
    ]:
        refused = check_game(method, path, game)
        assert refused is not None and (refused.status, refused.code) == (403, "forbidden_game_origin"), path
        assert "http://127.0.0.1:5173" in refused.message and "http://localhost:5173/__pix3/" in refused.message
    for path in ("/__pix3/game/", "/__pix3/page/recorder.js", "/__pix3/api/scene", "/__pix3/", "/__pix3"):
        assert check_game("GET", path, game) is None and check_game("HEAD", path, game) is None, path
    assert check_game("GET", "/__pix3/api/hello", {"host": "127.0.0.1:5173", "origin": "http://127.0.0.1:5173"})
    for headers in ({"host": "127.0.0.1:5173"}, {"host": "localhost:5173", **FETCH}, {"host": "box.example", **FETCH}):
        assert check_game("PUT", "/__pix3/api/file", headers) is None, headers
    assert check_game("GET", "/__pix3/ws", {"host": "127.0.0.2:5173", "origin": "http://127.0.0.2:5173"}) is None
    assert is_browser_request({"sec-fetch-dest": "empty"}) and not is_browser_request({"host": "x", "x-pix3": "1"})


def test_a_browser_s_editor_page_is_under_localhost() -> None:
    for host in ("127.0.0.1:5173", "[::1]:5173", "127.0.0.2:5173"):
        assert editor_page_redirect({"host": host, **FETCH}, "a=1") == "http://localhost:5173/__pix3/?a=1"
    assert editor_page_redirect({"host": "127.0.0.1", **FETCH}) == "http://localhost/__pix3/"
    for headers in ({"host": "localhost:5173", **FETCH}, {"host": "box.example", **FETCH}, {"host": "127.0.0.1:5173"}):
        assert editor_page_redirect(headers) is None, headers


def test_timeout_and_expect_parsing() -> None:
    assert parse_timeout({}) == 10_000
    assert parse_timeout({"timeoutMs": 0}) == 0
    assert parse_timeout({"timeoutMs": 10**9}) == 120_000
    for bad in (-1, "5", True, float("inf"), None):
        with pytest.raises(ApiError) as caught:
            parse_timeout({"timeoutMs": bad})
        assert caught.value.body() == {
            "error": "bad_request",
            "message": "`timeoutMs` must be a non-negative number.",
        }
    sha = "A" * 64
    assert parse_expect({"expect": {"a.txt": sha}}, lambda p, f: None) == {"a.txt": "a" * 64}
    with pytest.raises(ApiError) as caught:
        parse_expect({"expect": []}, lambda p, f: None)
    assert caught.value.message == "`expect` must be an object {path: sha256}."
    with pytest.raises(ApiError) as caught:
        parse_expect({"expect": {"a.txt": "zz"}}, lambda p, f: None)
    assert caught.value.message == 'expect["a.txt"] must be a hex sha256.'


def test_version_gate() -> None:
    assert version_gate(None, None) is None
    assert version_gate("2.0.0", None) is None
    assert version_gate(None, "2.0.0") == "The project has no @pix3/runtime installed. Run: npm i @pix3/runtime"
    assert version_gate("2.0.0-alpha.0", "2.0.0-alpha.0") is None
    assert version_gate("2.1.3", "2.1.0") is None
    message = version_gate("2.0.0-alpha.0", "2.0.0-alpha.1")
    assert message == (
        "This editor (@pix3/editor-core 2.0.0-alpha.1) needs @pix3/runtime 2.0.0-alpha.1; "
        "the project has 2.0.0-alpha.0. Run: npm i @pix3/runtime@2.0.0-alpha.1"
    )
    page = gate_page("<b>")
    assert b"Pix3 \xe2\x80\x94 version mismatch" in page and b"&lt;b&gt;" in page


def test_editor_scripts_and_script_frames() -> None:
    from pix3net.devserver.wiring import editor_script, script_frames

    for path in ("scripts/Foo.ts", "scripts/ai/Bar.ts", "src/scripts/a.ts", "design/tests/bots/b.ts"):
        assert editor_script(path), path
    for path in ("scripts/Foo.d.ts", "scripts/Foo.spec.ts", "scripts/Foo.test.ts", "lib/helper.ts", "scripts/a.js"):
        assert not editor_script(path), path
    frame = {
        "type": "pix3:fs",
        "events": [
            {"op": "modify", "path": "scripts/Foo.ts", "kind": "file", "author": "external"},
            {"op": "delete", "path": "scripts/Old.ts", "kind": "file", "author": "external"},
            {"op": "create", "path": "scripts/sub", "kind": "dir", "author": "external"},
            {"op": "rename", "path": "scripts/New.ts", "from": "x.ts", "kind": "file", "author": "external"},
        ],
    }
    assert script_frames(frame) == [
        {"type": "pix3:scripts", "path": "scripts/Foo.ts"},
        {"type": "pix3:scripts", "path": "scripts/New.ts"},
    ]
