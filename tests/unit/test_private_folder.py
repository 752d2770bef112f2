"""The link-safe primitives every daemon and tool reaches `.pix3` through (pix3tools.core.private):
docs/reliability.md, "A hostile project folder". Tables of what can sit where a folder or a file
of ours should be."""

from __future__ import annotations

import errno
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pix3tools.core.private import (
    MAX_NAME_BYTES,
    Folder,
    Refused,
    open_folder,
    plain_name,
    private_folder,
    read_private,
    write_private,
)

SECRET = b"outside the project\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the project holding a sentinel file and a sub-folder."""
    folder = tmp_path / "outside"
    (folder / "sub").mkdir(parents=True)
    (folder / "secret").write_bytes(SECRET)
    (folder / "sub" / "secret").write_bytes(SECRET)
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    return project


def untouched(outside: Path) -> bool:
    return sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*")) == [
        "secret",
        "sub",
        "sub/secret",
    ] and all((outside / name).read_bytes() == SECRET for name in ("secret", "sub/secret"))


@pytest.fixture
def no_hang() -> Iterator[None]:
    """A fifo opened the wrong way blocks forever: fail after 5 s instead."""

    def boom(_signum: int, _frame: object) -> None:
        raise TimeoutError("blocked on a fifo")

    previous = signal.signal(signal.SIGALRM, boom)
    signal.alarm(5)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# Where a folder of ours should be: (what is planted, the errno, words the message holds).
Plant = Callable[[Path, Path], object]
FOLDER_PLANTS: list[tuple[str, Plant, int, str]] = [
    (
        "a link to a folder",
        lambda at, out: at.symlink_to(out, target_is_directory=True),
        errno.ELOOP,
        "symbolic link to",
    ),
    ("a dangling link", lambda at, out: at.symlink_to(out / "missing"), errno.ELOOP, "symbolic link to"),
    ("a link to a file", lambda at, out: at.symlink_to(out / "secret"), errno.ELOOP, "symbolic link to"),
    ("a regular file", lambda at, _out: at.write_bytes(b"x"), errno.ENOTDIR, "is not a folder"),
    ("a fifo", lambda at, _out: os.mkfifo(at), errno.ENOTDIR, "is not a folder"),
]
# The levels: `.pix3` itself, a sub-folder of it, a folder two below it.
LEVELS = [(), ("tmp",), ("history", "scenes")]


@pytest.mark.parametrize("level", LEVELS, ids=lambda level: "/".join((".pix3", *level)))
@pytest.mark.parametrize(("what", "plant", "code", "words"), FOLDER_PLANTS, ids=[p[0] for p in FOLDER_PLANTS])
@pytest.mark.parametrize("create", [False, True], ids=["open", "create"])
def test_nothing_is_followed_where_a_folder_of_ours_should_be(
    root: Path,
    outside: Path,
    no_hang: None,
    level: tuple[str, ...],
    what: str,
    plant: Plant,
    code: int,
    words: str,
    create: bool,
) -> None:
    at = root.joinpath(".pix3", *level)
    at.parent.mkdir(parents=True, exist_ok=True)
    plant(at, outside)
    with pytest.raises(Refused) as refused:
        private_folder(root, *level, "deeper", create=create).close()
    assert refused.value.errno == code
    assert refused.value.path == str(at)
    assert str(at) in str(refused.value) and words in str(refused.value)
    assert str(refused.value).endswith("run again."), "it says what to do"
    if code == errno.ELOOP:
        assert os.readlink(at) in str(refused.value), "it says where the link points"
    assert untouched(outside)
    assert not (outside / "missing").exists(), "a dangling link's target is never created"
    assert os.path.lexists(at), "what was planted is left alone"


def test_write_read_and_append_work_below_a_real_folder(root: Path) -> None:
    write_private(root, "a", "b", "f.json", data=b"one")
    assert read_private(root, "a", "b", "f.json") == b"one"
    write_private(root, "a", "b", "f.json", data=b"two")
    assert read_private(root, "a", "b", "f.json") == b"two"
    assert read_private(root, "a", "missing", "f.json") is None
    assert read_private(root, "a", "b", "missing") is None
    with private_folder(root, "a") as folder:
        folder.append("log", b"x\n")
        folder.append("log", b"y\n")
        assert folder.read("log") == b"x\ny\n"
        assert sorted(name for name, _st in folder.entries()) == ["b", "log"]
    assert sorted(os.listdir(root / ".pix3" / "a" / "b")) == ["f.json"], "no temporary left behind"


# Where a file of ours should be read or appended to.
FILE_PLANTS: list[tuple[str, Plant]] = [
    ("a link to a file", lambda at, out: at.symlink_to(out / "secret")),
    ("a dangling link", lambda at, out: at.symlink_to(out / "missing")),
    ("a fifo", lambda at, _out: os.mkfifo(at)),
    ("a folder", lambda at, _out: at.mkdir()),
]


@pytest.mark.parametrize(("what", "plant"), FILE_PLANTS, ids=[p[0] for p in FILE_PLANTS])
@pytest.mark.parametrize("act", ["read", "append", "open_append"])
def test_a_file_of_ours_is_never_read_or_appended_through_anything_but_a_file(
    root: Path, outside: Path, no_hang: None, what: str, plant: Plant, act: str
) -> None:
    (root / ".pix3").mkdir()
    plant(root / ".pix3" / "f", outside)
    with private_folder(root) as folder, pytest.raises(Refused) as refused:
        if act == "read":
            folder.read("f")
        elif act == "append":
            folder.append("f", b"planted\n")
        else:
            os.close(folder.open_append("f", truncate=True))
    assert str(root / ".pix3" / "f") in str(refused.value)
    assert untouched(outside)
    assert not (outside / "missing").exists()


def test_a_write_replaces_a_link_and_never_writes_through_it(root: Path, outside: Path) -> None:
    (root / ".pix3").mkdir()
    (root / ".pix3" / "dev.json").symlink_to(outside / "secret")
    write_private(root, "dev.json", data=b"{}\n")
    assert not (root / ".pix3" / "dev.json").is_symlink()
    assert (root / ".pix3" / "dev.json").read_bytes() == b"{}\n"
    assert untouched(outside)


def test_remove_never_leaves_the_tree(root: Path, outside: Path) -> None:
    tree = root / ".pix3" / "tx" / "1-abcdefabcdef"
    (tree / "new").mkdir(parents=True)
    (tree / "new" / "0").write_bytes(b"staged")
    (tree / "out").symlink_to(outside, target_is_directory=True)
    (tree / "new" / "secret").symlink_to(outside / "secret")
    (root / ".pix3" / "tx" / "link").symlink_to(outside, target_is_directory=True)
    with private_folder(root, "tx") as tx:
        assert tx.remove("1-abcdefabcdef") is True
        assert tx.remove("link") is True, "a link is unlinked, not entered"
        assert tx.remove("gone") is False
    assert os.listdir(root / ".pix3" / "tx") == []
    assert untouched(outside)


def test_a_read_bigger_than_its_limit_is_refused(root: Path) -> None:
    write_private(root, "index.jsonl", data=b"x" * 101)
    with pytest.raises(Refused) as refused:
        read_private(root, "index.jsonl", limit=100)
    assert refused.value.errno == errno.EFBIG


LONG = "a" * 5000
NAMES = [
    ("", False),
    (".", False),
    ("..", False),
    ("a/b", False),
    ("a\0b", False),
    ("a" * MAX_NAME_BYTES, True),
    ("a" * (MAX_NAME_BYTES + 1), False),
    ("é" * 128, False),  # 256 bytes in UTF-8
    (LONG, False),
    ("1700000000000-deadbeef", True),
]


@pytest.mark.parametrize(("name", "plain"), NAMES, ids=[repr(n[:12]) + f"({len(n)})" for n, _p in NAMES])
def test_only_plain_names_are_used(root: Path, name: str, plain: bool) -> None:
    assert plain_name(name) is plain
    if plain:
        return
    (root / ".pix3").mkdir(exist_ok=True)
    with private_folder(root) as folder:
        for act in (
            lambda: folder.sub(name, create=True),
            lambda: folder.read(name),
            lambda: folder.write(name, b""),
            lambda: folder.unlink(name),
        ):
            with pytest.raises(Refused) as refused:
                act()
            assert refused.value.errno == errno.EINVAL
    assert os.listdir(root / ".pix3") == []


def test_the_root_itself_is_opened_as_given(tmp_path: Path, root: Path) -> None:
    """The user chose the root: a project reached through a link of theirs works."""
    alias = tmp_path / "alias"
    alias.symlink_to(root, target_is_directory=True)
    write_private(alias, "x", data=b"ok")
    assert (root / ".pix3" / "x").read_bytes() == b"ok"
    with open_folder(alias, []) as top:
        assert isinstance(top, Folder) and top.path == str(alias)
