"""Script types (pix3tools.scripttypes): the generated @pix3/runtime declarations, three's types in
the $PIX3_HOME cache (installed once, printed first, never offline), and the .pix3/types layout."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pix3tools.core import CLI_VERSION
from pix3tools.scene import MISSING, NODE_SCHEMAS, NODE_TYPES, type_format
from pix3tools.scripttypes import (
    CHECK_INCLUDE,
    CHECK_TSCONFIG,
    THREE_TYPES_VERSION,
    TypesUnavailable,
    cache_prefix,
    check_root_files,
    declarations,
    prepare_types,
    resolve_three_types,
    three_install_command,
)
from tests.support.node import NODE_DIR, fake_three
from tests.support.pix3 import REPO

DTS = declarations(CLI_VERSION)


def _class_body(name: str) -> tuple[str, str]:
    match = re.search(rf"^export declare class {name} extends (\w+) \{{\n(.*?)^\}}", DTS, re.M | re.S)
    assert match, f"no class {name}"
    return match.group(1), match.group(2)


def _members_of(name: str) -> dict[str, str]:
    """Every property a class has, its own and inherited, name → declared type."""
    members: dict[str, str] = {}
    while name != "NodeBase":
        parent, body = _class_body(name)
        for line in body.splitlines():
            found = re.match(r"\s+(\w+)\??: (.+);$", line)
            if found:
                members.setdefault(found.group(1), found.group(2))
        name = parent
    base = re.search(r"^export declare class NodeBase \{\n(.*?)^\}", DTS, re.M | re.S)
    assert base
    for line in base.group(1).splitlines():
        found = re.match(r"\s+(?:readonly )?(\w+)\??: (.+);$", line)
        if found:
            members.setdefault(found.group(1), found.group(2))
    return members


def test_every_node_type_is_a_class_with_every_property_of_the_scene_model() -> None:
    for type_name in NODE_TYPES:
        members = _members_of(type_name)
        for prop in NODE_SCHEMAS[type_name].values():
            assert prop.name in members, f"{type_name}.{prop.name}"
        parent, _ = _class_body(type_name) if type_name != "Group" else ("NodeBase", "")
        family_class = {"base": "NodeBase", "2d": "Node2D", "3d": "Node3D"}[type_format(type_name).family]
        assert parent == (family_class if type_name not in ("Node2D", "Node3D") else "NodeBase")


def test_properties_are_typed_by_their_value_kind_and_nothing_is_any() -> None:
    sprite = _members_of("Sprite2D")
    assert sprite["width"] == "number" and sprite["visible"] == "boolean" and sprite["position"] == "Vector2"
    assert sprite["blendMode"] == '"normal" | "additive" | "multiply" | "subtract"'
    assert sprite["texture"] == "(TextureRef | string) | null"
    assert _members_of("Node3D")["rotation"] == "Euler" and _members_of("Camera2D")["followTargetId"] == "string | null"
    optional = [p.name for p in NODE_SCHEMAS["Bar2D"].values() if p.default is MISSING]
    assert optional and all(f"  {name}?: " in DTS for name in optional)
    assert "any" not in re.findall(r"\b\w+\b", DTS.split("export declare class NodeBase")[1])
    assert "[key: string]" not in DTS.split("export declare class NodeBase")[1]
    assert "export declare abstract class Script {" in DTS and "onUpdate?(dt: number): void;" in DTS


def test_three_types_come_from_the_cache(tmp_path: Path) -> None:
    fake_three(cache_prefix(tmp_path))
    found = resolve_three_types(tmp_path, offline=True)
    assert (found.source, found.version) == ("cache", THREE_TYPES_VERSION)
    assert cache_prefix(tmp_path) == tmp_path / "three-types" / THREE_TYPES_VERSION


def test_offline_never_installs_and_names_the_command(tmp_path: Path) -> None:
    def install(prefix: Path) -> str | None:
        raise AssertionError("offline must not install")

    with pytest.raises(TypesUnavailable) as raised:
        resolve_three_types(tmp_path, offline=True, install=install)
    command = three_install_command(tmp_path)
    assert raised.value.fix == command
    assert command == (
        f'npm install --prefix "{cache_prefix(tmp_path)}" @types/three@{THREE_TYPES_VERSION} '
        "--no-save --no-package-lock --no-audit --no-fund --loglevel=error"
    )
    assert str(raised.value).endswith(f"--offline forbids installing them. Run once:\n  {command}")


def test_installed_once_with_the_command_printed_first(tmp_path: Path) -> None:
    events: list[str] = []

    def install(prefix: Path) -> str | None:
        events.append(f"install {prefix}")
        fake_three(prefix)
        return None

    first = resolve_three_types(tmp_path, offline=False, install=install, log=events.append, who="pix3 kit")
    second = resolve_three_types(tmp_path, offline=False, install=install, log=events.append)
    assert (first.source, second.source) == ("installed", "cache")
    assert events == [
        f"pix3 kit: installing @types/three {THREE_TYPES_VERSION} once into {cache_prefix(tmp_path)}\n"
        f"  $ {three_install_command(tmp_path)}\n",
        f"install {cache_prefix(tmp_path)}",
    ]


def test_a_failed_install_says_why_and_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(TypesUnavailable, match=r"Could not install @types/three \(E404\)\. Run it yourself:\n  npm"):
        resolve_three_types(tmp_path / "a", offline=False, install=lambda p: "E404", log=str)
    with pytest.raises(TypesUnavailable, match="npm reported success but nothing was installed"):
        resolve_three_types(tmp_path / "b", offline=False, install=lambda p: None, log=str)


def test_the_layout_is_written_once_and_again_when_it_is_not_ours(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "game"
    root.mkdir()
    fake_three(cache_prefix(home))
    note = prepare_types(root, home, offline=True)
    assert note is not None and note.startswith(f"Wrote the @pix3/runtime {CLI_VERSION} types")
    types = root / ".pix3" / "types"
    assert (types / "@pix3" / "runtime" / "index.d.ts").read_text() == DTS
    assert (types / "@types" / "three" / "index.d.ts").is_file() and (types / "@types" / "webxr").is_dir()
    assert (types / "@types" / "pix3-vite-env" / "index.d.ts").is_file()
    assert (root / ".pix3" / "tsconfig.check.json").read_text() == CHECK_TSCONFIG
    record = json.loads((types / "version.json").read_text())
    assert (record["cliVersion"], record["threeTypesVersion"]) == (CLI_VERSION, THREE_TYPES_VERSION)
    assert prepare_types(root, home, offline=True) is None
    (root / ".pix3" / "tsconfig.check.json").write_text("{}")
    assert prepare_types(root, home, offline=True) is not None
    assert (root / ".pix3" / "tsconfig.check.json").read_text() == CHECK_TSCONFIG
    (types / "version.json").write_text(json.dumps({**record, "cliVersion": "1.6.2"}))
    assert prepare_types(root, home, offline=True) is not None
    assert sorted(p.name for p in (root / ".pix3").iterdir()) == ["tsconfig.check.json", "types"]


def test_the_pin_is_the_starters_three_and_the_test_clients() -> None:
    starter = json.loads((REPO / "pix3tools/new/templates/base/files/package.json").read_text())
    assert starter["devDependencies"]["@types/three"] == f"^{THREE_TYPES_VERSION}"
    clients = json.loads((NODE_DIR / "package.json").read_text())
    assert clients["dependencies"]["@types/three"] == THREE_TYPES_VERSION


def test_the_check_tsconfig_includes_the_folders_root_files_are_picked_from() -> None:
    include = json.loads(re.sub(r"^\s*//.*$", "", CHECK_TSCONFIG, flags=re.M))["include"]
    assert include == [f"../{folder}/**/*.ts" for folder in CHECK_INCLUDE]


def test_root_files_are_picked_as_typescript_matches_folder_star_star_star_ts(tmp_path: Path) -> None:
    """What TypeScript's `../scripts/**/*.ts` takes from the files it read (the real tsc agrees:
    tests/integration/test_check_types.py)."""
    root = tmp_path / "game"
    taken = ["scripts/A.ts", "scripts/x/y/B.d.ts", "src/scripts/.ts", "src/scripts/node_modules2/C.ts",
             "design/tests/bots/d.ts", "scripts/Q.ts", "scripts/a.b.ts"]  # fmt: skip
    left = ["scripts/.hid/H.ts", "scripts/.dot.ts", "scripts/node_modules/N.ts", "scripts/x/bower_components/b.ts",
            "scripts/jspm_packages/j.ts", "scripts/Q.d.ts", "scripts/A.tsx", "scripts/A.mts", "src/main.ts",
            "scriptsX/A.ts", "design/tests.ts", ".pix3/types/@types/three/index.d.ts"]  # fmt: skip
    listed = [str(root / name) for name in [*left, *taken]]
    listed.append(str(tmp_path / "elsewhere" / "scripts" / "A.ts"))
    assert check_root_files(root, listed) == [str(root / name) for name in taken]
