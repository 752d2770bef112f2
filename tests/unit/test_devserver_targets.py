"""The front door's target rules (docs/devserver.md, "What the front door refuses") as tables:
the routing rule, the deny list, the normaliser, `/@fs/`, the content-fetching queries, the HMR
socket's `vite:invoke`, and the fast check the splice relies on (a property)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pix3net.devserver.front import targets
from pix3net.devserver.front.door import Door, serving_roots

ROOT = "/home/me/game"
ROOTS = (ROOT, "/home/me/game/node_modules", "/opt/store/vite")
OUTSIDE = {"/etc/passwd", "/tmp/secret.txt", "/home/me/.ssh/id_rsa"}


def outside(path: str) -> bool:
    """A fake disk: these absolute paths exist outside the project, and the project has no file of that name."""
    return path in OUTSIDE


def refused(target: bytes) -> bool:
    return targets.refusal(target, ROOTS, outside) is not None


@pytest.mark.parametrize(
    ("raw", "route"),
    [
        (b"/.pix3/local/keys.json", "private"),
        (b"/%2epix3/local/keys.json", "private"),
        (b"/.%70ix3/dev.json", "private"),
        (b"/.PIX3/local/keys.json", "private"),
        (b"/@fs/home/me/game/.pix3/local/keys.json", "private"),
        (b"/src/.pix3", "private"),
        (b"/%ff/.pix3", "private"),  # stricter than the reference: undecodable bytes elsewhere do not matter
        (b"/__pix3/.pix3/x", "private"),
        (b"/src/a.pix3scene", "other"),
        (b"/x.pix3/a", "other"),
        (b"/src/main.ts", "other"),
        (b"/@vite/client", "other"),
        (b"/__pix3", "pix3"),
        (b"/__pix3/api/hello", "pix3"),
        (b"/%5F_pix3/api/hello", "pix3"),
        (b"/__pix3x", "other"),
        (b"/__PIX3/api/hello", "other"),
    ],
)
def test_one_rule_routes_every_request(raw: bytes, route: str) -> None:
    assert targets.route_of(raw) == route


@pytest.mark.parametrize(
    "segment",
    [
        b".env",
        b".ENV",
        b".env.local",
        b".env.production.local",
        b".env.",
        b".env..",
        b".env ",
        b".env::$DATA",
        b"key.pem",
        b"KEY.PEM",
        b"server.crt",
        b"tls.crt.",
        b"a.pem:x",
        b".git",
        b".GIT",
        b".git.",
        b".pix3",
        b".Pix3",
        # DOS short aliases (CVE-2026-53571: Windows opens `ENV~1` as `.env`; so do vfat mounts)
        b"ENV~1",
        b"env~12",
        b"GIT~1",
        b"ENVLOC~1.LOC",
        b"KEY~1.PEM",
    ],
)
def test_denied_names(segment: bytes) -> None:
    assert targets.denied_name(segment)


@pytest.mark.parametrize(
    "segment",
    [
        b"env",
        b".envrc",
        b"x.env",
        b".environment",
        b"pem",
        b"a.pem.bak",
        b".github",
        b".gitignore",
        b"git",
        b".gitkeep",
        b"a.crtx",
        b".pix3scene",
        b"main.pix3scene",
        b"",
        b"src",
        b"a~b.js",
        b"x~1.tar.gz",
    ],
)
def test_names_not_denied(segment: bytes) -> None:
    assert not targets.denied_name(segment)


REFUSED = [
    # the deny list, whatever the spelling or the query (CVE-2025-30208, -31125, -31486, CVE-2026-39364)
    b"/.env",
    b"/.env?raw",
    b"/.env?import&raw",
    b"/.env?raw??",
    b"/.env?import&raw??",
    b"/.env?raw?import",
    b"/.env?import&url&inline",
    b"/.env?inline&import",
    b"/.env?.svg?.wasm?init",
    b"/.env?import&?inline=1.wasm?init",
    b"/src/.env.local?raw",
    b"/key.pem?raw??",
    b"/certs/server.crt?import&raw??",
    b"/.git/config",
    b"/.git/config?raw??",
    b"/sub/.git/HEAD",
    b"/%2eenv",
    b"/%2Eenv?raw?import",
    b"/%252eenv",  # encoded twice
    b"/.%65nv",
    b"/.ENV",
    b"/.env.",
    b"/.env%20",
    b"/key.pem.",
    b"/.env/",
    b"/@id/.env?raw?import",
    b"/.pix3/dev.json",
    # dot segments and the /.-suffix, raw and encoded (CVE-2025-46565, -58752, -31486, CVE-2026-39365)
    b"/.env/.",
    b"/key.pem/.",
    b"/src/../.env?raw?import",
    b"/src/%2e%2e/.env",
    b"/src/..%2f.env",
    b"/../outside/secret.html",
    b"/%2e%2e/outside/secret.html",
    b"/node_modules/.vite/deps/../../../../outside/secret.map",
    b"/node_modules/.vite/deps/%2e%2e/%2e%2e/x.map",
    b"/./src/main.ts",
    b"/src/.",
    b"/src/...",
    b"/src/%252e%252e/x",
    # characters Vite reads as the end of a path, or Windows as a separator (CVE-2025-32395, -62522)
    b"/@fs/home/me/game/#/../../../etc/passwd",
    b"/src/main.ts#x",
    b"/.env\\",
    b"/src\\main.ts",
    b"/src/%5c..%5c.env",
    b"/src/a%00.js",
    b"/src/a%23b.js",
    b"/src/a%3Fraw.js",
    b"/src/%25%32%35%32%35%32%65",  # still encoded after three rounds
    # /@fs/ outside the serving roots (CVE-2025-30208, -31125)
    b"/@fs/tmp/secret.txt",
    b"/@fs/tmp/secret.txt?import&raw??",
    b"/@fs/tmp/secret.txt?raw?import",
    b"/@fs/tmp/secret.txt?import&?inline=1.wasm?init",
    b"/@fs/tmp/secret.txt?inline&import",
    b"/@fs/etc/passwd",
    b"/@fs//etc/passwd",
    b"/@fs/home/me/gamex/secret.txt",  # a sibling sharing the root's prefix
    b"/@fs/home/me/game/.env",
    b"/@id//tmp/secret.txt?import&raw??",
    b"/@id/@fs/etc/passwd",
    # a content-fetching query on a path Vite would read outside the project as absolute
    b"/tmp/secret.txt?import&raw??",
    b"/tmp/secret.txt?raw?import",
    b"/tmp/secret.txt?t=1&raw?import",
    b"/tmp/secret.txt?import&inline",
    b"/tmp/secret.txt?url",
    b"/etc/passwd?.svg?.wasm?init",
    b"/etc/passwd?raw",
    b"/home/me/.ssh/id_rsa?import&raw",
    # issue 31, item 4: a file outside the project, whatever the query (Vite inlines a small SVG
    # under `?import`, reads `inline` as `/[?&]inline\b/`, and transforms for `Sec-Fetch-Dest`)
    b"/etc/passwd",
    b"/etc/passwd?import",
    b"/tmp/secret.txt?import&t=1",
    b"/tmp/secret.txt?import&inline-x",
    b"/tmp/secret.txt?import&inline.",
    b"/tmp/secret.txt?import&url&inline-x",
    b"//tmp/secret.txt?import",
    b"/@id//tmp/secret.txt?import",
    b"/@id/tmp/secret.txt?import",
    # issue 31, item 2: dot segments after a `?` (Vite normalises the id, query and all)
    b"/@fs/home/me/game/?/../../../etc/passwd?import&?raw",
    b"/@fs/home/me/game/?/%2e%2e/%2e%2e/%2e%2e/etc/passwd?import&?raw",
    b"/?/../../etc/passwd?import&?raw",
    b"/src/main.ts?/..",
    b"/src/main.ts?..",
    b"/src/main.ts?x/./y",
    b"/src/main.ts?a=%2F..%2F",
    # DOS short aliases of denied names (CVE-2026-53571)
    b"/ENV~1",
    b"/GIT~1/config",
    # not origin-form
    b"http://127.0.0.1/src/main.ts",
    b"*",
]

ALLOWED = [
    b"/",
    b"/index.html",
    b"/src/main.ts",
    b"/src/main.ts?t=1700000000000",
    b"/node_modules/.vite/deps/three.js?v=1a2b3c4d",
    b"/node_modules/.vite/deps/three.js.map",
    b"/@vite/client",
    b"/@vite/env",
    b"/@id/__x00__virtual:pix3",
    b"/@fs/home/me/game/src/main.ts",
    b"/@fs/home/me/game/node_modules/three/build/three.module.js?v=1",
    b"/@fs/opt/store/vite/dist/client/env.mjs",
    b"/src/shader.glsl?import&raw",  # the project's own file: the fake disk has nothing outside named so
    b"/src/logo.png?import&url",
    b"/src/style.css?import&inline",
    b"/src/a%20b.js",
    b"/src/pix3.js",
    b"/PIX3",
    b"/src/a.js?x=/.pix3/",  # a query is not a path
    b"/scenes/main.pix3scene",
    b"/.well-known/x",
    b"/src/.hidden/a.js",
    b"/.github/x.yml",
    b"/src/%E2%9C%93.js",
    b"/home",  # a game's route: the host's /home is a folder, no file (the fake disk has none)
    b"/src/main.ts?v=1.2.3",
    b"/src/main.ts?x=.../a",
]


@pytest.mark.parametrize("target", REFUSED)
def test_refused_targets(target: bytes) -> None:
    assert refused(target), target


@pytest.mark.parametrize("target", ALLOWED)
def test_allowed_targets(target: bytes) -> None:
    assert not refused(target), targets.refusal(target, ROOTS, outside)


_TARGET_PARTS = st.sampled_from(
    [
        "/",
        ".",
        "..",
        "%",
        "%2e",
        "%2E",
        "%25",
        "%5c",
        "%00",
        "%23",
        "%3f",
        "#",
        "\\",
        "?",
        "&",
        "=",
        "@fs",
        "@id",
        "raw",
        "url",
        "inline",
        "init",
        "import",
        ".svg",
        ".wasm",
        "env",
        "git",
        "pem",
        "crt",
        "pix3",
        "PIX3",
        "__",
        "src",
        "a",
        "tmp",
        "secret.txt",
        "etc",
        "passwd",
        ":",
        " ",
        "x",
        "~1",
        "home",
    ]
)


TOP = frozenset({b"tmp", b"etc", b"home"})  # the fake host's top folders


def _first_name(target: bytes) -> bytes:
    """The first name of a target's path in lower case, leading slashes skipped."""
    return target.lstrip(b"/").split(b"/", 1)[0].split(b"?", 1)[0].lower()


def outside_top(path: str) -> bool:
    """A fake disk where every path under a top folder of the host is a file outside the project."""
    return _first_name(path.encode()) in TOP


@settings(max_examples=1000, deadline=None)
@given(st.lists(_TARGET_PARTS, max_size=12))
@example(["src", "?", ".."])  # the shapes of issue 31, always tried
@example(["x", "?", ".", "/", "a"])
@example(["/", "tmp", "/", "a"])
@example(["~1"])
def test_what_the_fast_check_lets_by_passes_every_rule(parts: list[str]) -> None:
    """The splice relays a target `Door.plain` calls plain (nothing suspect, a first name that is
    no top folder of the host) without asking anything else: such a target must route to Vite and
    pass every rule, whatever the disk holds under the top folders."""
    target = ("/" + "".join(parts)).encode()
    name = targets.unsuspected_name(target)
    if name is not None and name not in TOP:
        assert name == _first_name(target)
        assert targets.route_of(target.split(b"?", 1)[0]) == "other"
        assert targets.refusal(target, ROOTS, outside_top) is None, target


def _invoke(*args: object) -> str:
    return json.dumps(
        {"type": "custom", "event": "vite:invoke", "data": {"id": "send:1", "name": "fetchModule", "data": list(args)}}
    )


@pytest.mark.parametrize(
    "message",
    [
        _invoke("file:///etc/passwd?raw"),
        _invoke("file:///tmp/secret.txt?inline"),
        _invoke("FILE:///etc/passwd"),
        _invoke("file://localhost/etc/passwd?raw"),
        _invoke("file:/etc/passwd?raw"),
        _invoke("/@fs/etc/passwd?raw"),
        _invoke("/etc/passwd?raw"),
        _invoke("/etc/passwd"),
        _invoke("/.env?raw"),
        _invoke(".env"),
        _invoke("/src/main.ts", "/home/me/game/.git/config"),
        _invoke("../../etc/passwd"),
        _invoke("/src/%2e%2e/.env"),
        _invoke("file:///home/me/game/key.pem?raw"),
        json.dumps({"type": "custom", "event": "vite:invoke", "data": {"nested": [[["file:///etc/passwd?raw"]]]}}),
        json.dumps({"type": "custom", "event": "vite:invoke", "data": {"a": [[[[[[[[[["x"]]]]]]]]]]}}),
        json.dumps({"type": "custom", "event": "vite:invoke", "data": ["/src/a.ts"] * 100}),
        '{"type":"custom","event":"vite:invoke","data":',  # does not parse, names vite:invoke
        '{"type":"custom","event":"vite\\u003ainvoke","data":{"data":["file:///etc/passwd?raw"]}}',
        # issue 31, item 3: the name escaped and a padding Python's parser gives up on (Node's does not)
        '{"type":"custom","event":"vite\\u003ainvoke","data":{"data":["file:///etc/passwd?raw"]},"p":'
        + "[" * 5000
        + "]" * 5000
        + "}",
        '{"type":"custom","event":"x:ping","p":' + "[" * 5000 + "]" * 5000 + "}",  # deep, whatever it names
        "not json",
        '{"type":"custom","event":"x:ping","data":"' + "a" * targets.MAX_CLIENT_MESSAGE_BYTES + '"}',
        _invoke("/@fs/home/me/game/?/../../../etc/passwd?raw"),
        _invoke("/tmp/secret.txt?import"),
    ],
)
def test_invoke_messages_refused(message: str) -> None:
    assert targets.invoke_refusal(message, ROOTS, outside) is not None
    assert targets.invoke_refusal(message.encode(), ROOTS, outside) is not None  # a binary frame too


def test_a_binary_message_that_is_not_utf8_is_refused() -> None:
    """Node reads bad bytes as U+FFFD; the door does not guess what it would then see."""
    assert targets.invoke_refusal(b'{"type":"custom","event":"x:ping","data":"\xff"}', ROOTS, outside) is not None


@pytest.mark.parametrize(
    "message",
    [
        _invoke("/src/main.ts"),
        _invoke("file:///home/me/game/src/main.ts"),
        _invoke("three", "/src/main.ts"),
        _invoke("/@fs/home/me/game/src/a.ts?raw"),
        json.dumps(
            {"type": "custom", "event": "vite:invoke", "data": {"id": "send:2", "name": "getBuiltins", "data": []}}
        ),
        json.dumps({"type": "ping"}),
        json.dumps({"type": "custom", "event": "pix3:hello", "data": {"path": "/etc/passwd"}}),
        "[1, 2]",
        json.dumps({"type": "custom", "event": "x:deep", "data": [[[[[[[[[[[[1]]]]]]]]]]]]}),
    ],
)
def test_invoke_messages_passed(message: str) -> None:
    assert targets.invoke_refusal(message, ROOTS, outside) is None


def test_the_door_remembers_host_verdicts(tmp_path: Path) -> None:
    door = Door.for_project(tmp_path, "https://box.example/", None)
    assert door.host_field_ok(b"127.0.0.1:5173") and door.host_field_ok(b"box.example")
    assert not door.host_field_ok(b"127.evil.example") and not door.host_field_ok(None)
    assert door._verdicts == {b"127.0.0.1:5173": True, b"box.example": True, b"127.evil.example": False}
    for n in range(1000):  # a flood of distinct names is judged, not remembered past the bound
        assert not door.host_field_ok(f"{n}.evil.example".encode())
    assert len(door._verdicts) == 256


def test_the_door_reads_the_disk_only_as_vite_would(tmp_path: Path) -> None:
    root = tmp_path / "game"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.txt").write_text("x")
    (root / "public").mkdir()
    (root / "public" / "p.txt").write_text("x")
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("x")
    door = Door.for_project(root, None, None)
    assert door.outside(str(secret))
    assert not door.outside("/src/a.txt") and not door.outside("/p.txt") and not door.outside("/no/such/file")
    assert not door.outside(str(root / "src" / "a.txt"))
    assert door.target_refusal(f"{secret}?raw?import".encode()) is not None
    assert door.target_refusal(b"/src/a.txt?import&raw") is None
    # whatever the query, and however the path is wrapped (issue 31, item 4)
    for target in (f"{secret}", f"{secret}?import", f"/{secret}?import&inline-x", f"/@id/{secret}?import"):
        assert door.target_refusal(target.encode()) is not None, target
    assert not door.outside(str(tmp_path))  # a folder is no file: a game's route `/home` stays the game's


def test_a_project_file_named_like_a_host_path_authorizes_nothing_outside(tmp_path: Path) -> None:
    """CVE-2026-112946: Vite let a project file whose URL equals an absolute host path authorize a
    later read of that host file. The door judges each request against the disk as it is then:
    `/@fs/` names only the serving roots, and the project's file counts only while it is there."""
    root = tmp_path / "game"
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir(parents=True)
    secret.write_text("x")
    shadow = root / str(secret).lstrip("/")
    shadow.parent.mkdir(parents=True)
    shadow.write_text("the project's own")
    door = Door.for_project(root, None, None)
    assert door.target_refusal(f"{secret}?import".encode()) is None  # the project's file
    assert door.target_refusal(f"/@fs{secret}?raw".encode()) is not None
    shadow.unlink()
    assert door.target_refusal(f"{secret}?import".encode()) is not None


def test_only_names_of_the_host_top_folders_leave_the_fast_path(tmp_path: Path) -> None:
    door = Door.for_project(tmp_path, None, None)
    assert door.plain(b"/src/main.ts") and door.plain(b"/node_modules/.vite/deps/three.js?v=1")
    top = sorted(name for name in os.listdir("/") if name.isascii() and name.isalnum())[0]
    for target in (f"/{top}/x", f"//{top}/x", f"/{top.upper()}/x", f"/{top}", f"/{top}?import"):
        assert not door.plain(target.encode()), target
    assert not door.plain(b"/src/main.ts?/..") and not door.plain(b"http://x/")


def test_serving_roots(tmp_path: Path) -> None:
    store = tmp_path / "store" / "node_modules"
    (store / "vite" / "bin").mkdir(parents=True)
    (tmp_path / "node_modules").mkdir()
    root = tmp_path / "game"
    root.mkdir()
    (root / "node_modules").symlink_to(store)
    roots = serving_roots(root, root / "node_modules" / "vite" / "bin" / "vite.js")
    assert roots == (
        str(root),
        str(root / "node_modules"),
        str(store),
        str(tmp_path / "node_modules"),
        str(root / "node_modules" / "vite"),
        str(store / "vite"),
    )


@pytest.mark.parametrize(
    ("mode", "site", "foreign"),
    [
        ("navigate", "cross-site", True),  # a game framing or opening a page under the editor page's name
        ("navigate", "same-site", True),
        ("NAVIGATE", " Cross-Site ", True),
        ("navigate", None, True),  # a browser that says it navigates says who asked
        ("navigate", "same-origin", False),  # the game within its own origin
        ("navigate", "none", False),  # the address bar, a bookmark, CDP's Page.navigate
        ("cors", "cross-site", False),  # a fetch: its answer stays with the asking page's origin
        ("no-cors", "cross-site", False),
        (None, None, False),  # not a browser
    ],
)
def test_a_navigation_another_site_asked_for(mode: str | None, site: str | None, foreign: bool) -> None:
    assert targets.foreign_navigation(mode, site) is foreign
