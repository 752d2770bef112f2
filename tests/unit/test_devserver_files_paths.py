"""Wire path parsing and resolution (docs/devserver-files.md, "Wire paths"), with Hypothesis."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pix3net.devserver.files import FileError, http_error, is_journaled, parse_wire_path, resolve
from pix3net.devserver.http import content_type


def refusal(value: object, field: str = "path") -> tuple[int, str]:
    with pytest.raises(FileError) as caught:
        parse_wire_path(value, field)
    return http_error(caught.value).status, caught.value.code


@pytest.mark.parametrize(
    "value",
    [
        "",
        None,
        3,
        ["a"],
        "../etc/passwd",
        "a/../b",
        "a/..",
        "..",
        ".",
        "./a",
        "a/./b",
        "/etc/passwd",
        "//server/share",
        "a\\b",
        "..\\..\\windows",
        "C:/Windows",
        "c:x",
        "a/b\0c",
        "\0",
        "a//b",
        "a/",
        "a/b:c",
        "x:/y",
        "a/b.",
        "a/b ",
        "a./b",
        "x" * 4097,
    ],
)
def test_bad_paths_are_400_bad_path(value: object) -> None:
    assert refusal(value) == (400, "bad_path")


def test_the_message_names_the_field() -> None:
    with pytest.raises(FileError) as caught:
        parse_wire_path("../x", "files[3].path")
    assert caught.value.extra["field"] == "files[3].path"
    assert "`files[3].path`" in caught.value.message


def test_percent_encoded_dots_are_not_decoded_again() -> None:
    # `?path=` is decoded once by query parsing; what arrives here is never decoded again.
    assert parse_wire_path("%2e%2e/etc/passwd") == "%2e%2e/etc/passwd"
    assert refusal("%2e%2e/etc/passwd".replace("%2e", ".")) == (400, "bad_path")


@pytest.mark.parametrize(
    "value",
    [
        ".pix3",
        ".PIX3",
        ".pix3/dev.json",
        ".pix3/DEV.JSON",
        ".pix3/dev.log",
        ".pix3/tmp/x",
        ".pix3/tx",
        ".pix3/history/a",
        ".Pix3/Local/keys.json",
    ],
)
def test_private_paths_are_403_reserved(value: str) -> None:
    assert refusal(value) == (403, "reserved_path")


@pytest.mark.parametrize(
    "value", [".pix3/notes.md", "a/.pix3/dev.json", "scenes/a.pix3scene", "ünï/çødé.txt", "a b/c d.txt"]
)
def test_good_paths_are_returned_as_given(value: str) -> None:
    assert parse_wire_path(value) == value


def test_4096_chars_is_the_limit() -> None:
    assert parse_wire_path("x" * 4096) == "x" * 4096


def test_journaled_paths() -> None:
    # Journaled: the project file, scenes, prefabs and `locales/<name>.json` in any folder; nothing else.
    for yes in ("pix3project.yaml", "scenes/a.pix3scene", "p/b.prefab", "locales/en.json", "res/locales/de.json"):
        assert is_journaled(yes), yes
    for no in ("package.json", "locales/en/extra.json", "src/locales.json", "scripts/a.ts"):
        assert not is_journaled(no), no


def test_content_types() -> None:
    assert content_type("a/b.PIX3SCENE") == "text/yaml; charset=utf-8"
    assert content_type("x.jpg") == "image/jpeg"
    assert content_type("f.woff2") == "font/woff2"
    assert content_type(".gitignore") == "application/octet-stream"
    assert content_type("Makefile") == "application/octet-stream"
    assert content_type("m.glb") == "model/gltf-binary"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "dir" / "sub").mkdir(parents=True)
    (root / "dir" / "f.txt").write_text("f")
    (root / "file.txt").write_text("x")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    os.symlink(outside, root / "out")
    os.symlink(root / "dir", root / "in")
    os.symlink(outside / "secret.txt", root / "dir" / "link.txt")
    os.mkfifo(root / "fifo")
    return root


def test_resolution_kinds(tree: Path) -> None:
    root = str(tree)
    assert resolve(root, "dir")[0] == "dir"
    assert resolve(root, "dir/f.txt")[0] == "file"
    assert resolve(root, "fifo")[0] == "other"
    assert resolve(root, "nope/deeper", allow_missing=True)[0] == "none"
    with pytest.raises(FileError) as caught:
        resolve(root, "nope")
    assert (http_error(caught.value).status, caught.value.code, caught.value.message) == (
        404,
        "not_found",
        "nope does not exist.",
    )


@pytest.mark.parametrize("wire", ["out", "out/secret.txt", "in/f.txt", "in", "dir/link.txt"])
def test_symlinks_inside_and_outside_are_refused(tree: Path, wire: str) -> None:
    with pytest.raises(FileError) as caught:
        resolve(str(tree), wire, allow_missing=True)
    assert (http_error(caught.value).status, caught.value.code) == (403, "symlink")
    assert caught.value.message == f"{wire} goes through a symbolic link; the file API does not follow them."


def test_a_file_parent_is_409(tree: Path) -> None:
    with pytest.raises(FileError) as caught:
        resolve(str(tree), "file.txt/x", allow_missing=True)
    assert (http_error(caught.value).status, caught.value.code) == (409, "not_a_directory")


SEGMENT = st.sampled_from(["..", ".", "", "a", "dir", "out", "in", "%2e%2e", "C:", "x\\..", "sub", "f.txt", "link.txt"])


@settings(max_examples=400, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.one_of(SEGMENT, st.text(min_size=0, max_size=6)), min_size=1, max_size=6))
def test_nothing_resolves_outside_the_root(tree: Path, parts: list[str]) -> None:
    wire = "/".join(parts)
    try:
        parsed = parse_wire_path(wire)
        kind, st_result = resolve(str(tree), parsed, allow_missing=True)
    except FileError:
        return
    full = os.path.join(str(tree), *parsed.split("/"))
    # Accepted paths stay lexically inside the root, and no component is a symlink.
    assert os.path.normpath(full).startswith(str(tree) + os.sep)
    assert os.path.realpath(full) == os.path.normpath(full), kind
    if st_result is not None:
        assert os.path.realpath(full).startswith(str(tree) + os.sep)
