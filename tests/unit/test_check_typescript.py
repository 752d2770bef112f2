"""Where `pix3 check` finds TypeScript and which tsconfig it uses (docs/check.md, "Pipeline")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pix3tools.check._layout import has_own_tsconfig, prepare
from pix3tools.check._typescript import TypeScriptUnavailable, install_command, resolve_typescript
from pix3tools.core.nodemodules import installed_version
from pix3tools.scripttypes import CHECK_TSCONFIG, EXTENDS_LINE, cache_prefix
from tests.support.node import fake_three


def fake_typescript(folder: Path, version: str = "5.8.3") -> Path:
    (folder / "lib").mkdir(parents=True)
    (folder / "lib" / "typescript.js").write_text("")
    (folder / "package.json").write_text(json.dumps({"name": "typescript", "version": version}))
    return folder


def test_env_override_wins(tmp_path: Path) -> None:
    ts = fake_typescript(tmp_path / "mine", "5.0.0")
    fake_typescript(tmp_path / "project" / "node_modules" / "typescript")
    found = resolve_typescript(tmp_path / "project", tmp_path / "home", offline=True, env={"PIX3_TYPESCRIPT": str(ts)})
    assert (found.source, found.version, found.package_dir) == ("env", "5.0.0", ts)


def test_bad_env_override_is_unavailable_without_fix(tmp_path: Path) -> None:
    with pytest.raises(TypeScriptUnavailable) as raised:
        resolve_typescript(tmp_path, tmp_path, offline=True, env={"PIX3_TYPESCRIPT": str(tmp_path / "nope")})
    assert raised.value.fix is None and "PIX3_TYPESCRIPT" in str(raised.value)


def test_project_node_modules_walking_up(tmp_path: Path) -> None:
    fake_typescript(tmp_path / "node_modules" / "typescript")
    (tmp_path / "game").mkdir()
    assert resolve_typescript(tmp_path / "game", tmp_path / "home", offline=True, env={}).source == "project"


def test_offline_with_empty_cache_fails_with_the_command(tmp_path: Path) -> None:
    with pytest.raises(TypeScriptUnavailable) as raised:
        resolve_typescript(tmp_path / "p", tmp_path / "home", offline=True, env={})
    prefix = tmp_path / "home" / "typescript" / "5.8.3"
    assert raised.value.fix == install_command(prefix)
    assert "npm install --prefix" in str(raised.value) and "typescript@5.8.3" in str(raised.value)
    assert f'--prefix "{prefix}"' in raised.value.fix


def test_install_once_then_cache(tmp_path: Path) -> None:
    calls: list[Path] = []
    logged: list[str] = []

    def install(prefix: Path) -> str | None:
        calls.append(prefix)
        fake_typescript(prefix / "node_modules" / "typescript")
        return None

    home = tmp_path / "home"
    first = resolve_typescript(tmp_path / "p", home, offline=False, env={}, install=install, log=logged.append)
    second = resolve_typescript(tmp_path / "p", home, offline=False, env={}, install=install, log=logged.append)
    assert (first.source, second.source) == ("installed", "cache")
    assert len(calls) == 1 and "npm install --prefix" in "".join(logged)


def test_install_failure_and_empty_success(tmp_path: Path) -> None:
    with pytest.raises(TypeScriptUnavailable, match=r"Could not install TypeScript \(boom\)\. Run it yourself:\n  npm"):
        resolve_typescript(tmp_path, tmp_path / "h1", offline=False, env={}, install=lambda p: "boom", log=str)
    with pytest.raises(TypeScriptUnavailable, match="npm reported success but nothing was installed"):
        resolve_typescript(tmp_path, tmp_path / "h2", offline=False, env={}, install=lambda p: None, log=str)


def test_own_tsconfig_rules(tmp_path: Path) -> None:
    assert not has_own_tsconfig(tmp_path)
    (tmp_path / "tsconfig.json").write_text(EXTENDS_LINE + "\n")
    assert not has_own_tsconfig(tmp_path)
    (tmp_path / "tsconfig.json").write_text('{"include": ["src"]}')
    assert has_own_tsconfig(tmp_path)


def test_pix3_types_layout_written_once(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "game"
    root.mkdir()
    fake_three(cache_prefix(home))
    first = prepare(root, home, offline=True)
    assert (first.mode, first.tsconfig, first.unavailable) == ("pix3-types", ".pix3/tsconfig.check.json", None)
    assert first.note and first.note.startswith("Wrote the @pix3/runtime ")
    assert (root / ".pix3" / "tsconfig.check.json").read_text() == CHECK_TSCONFIG
    assert (root / ".pix3" / "types" / "@pix3" / "runtime" / "index.d.ts").is_file()
    assert json.loads((root / ".pix3" / "types" / "version.json").read_text())["format"] == 1
    assert prepare(root, home, offline=True).note is None  # current: nothing rewritten
    (root / ".pix3" / "tsconfig.check.json").write_text("{}")
    assert prepare(root, home, offline=True).note is not None


def test_pix3_types_without_three_types_offline(tmp_path: Path) -> None:
    layout = prepare(tmp_path, tmp_path / "home", offline=True)
    assert layout.mode == "pix3-types" and layout.unavailable is not None
    assert layout.unavailable.fix and "@types/three@" in layout.unavailable.fix
    assert not (tmp_path / ".pix3").exists()


def test_project_mode_dependencies(tmp_path: Path) -> None:
    (tmp_path / "tsconfig.json").write_text('{"include": ["src"]}')
    layout = prepare(tmp_path, tmp_path / "home", offline=True)
    assert layout.dependencies_missing and layout.skipped == "dependencies not installed (run npm install)"
    (tmp_path / "node_modules").mkdir()
    layout = prepare(tmp_path, tmp_path / "home", offline=True)
    assert not layout.dependencies_missing and layout.runtime_missing
    assert not (tmp_path / ".pix3" / "types").exists()


def test_installed_version_walks_up_and_stops_on_invalid(tmp_path: Path) -> None:
    pkg = tmp_path / "node_modules" / "@pix3" / "runtime"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text('{"version": "1.2.0"}')
    (tmp_path / "game").mkdir()
    assert installed_version(tmp_path / "game", "@pix3/runtime") == "1.2.0"
    (pkg / "package.json").write_text("{nope")
    assert installed_version(tmp_path / "game", "@pix3/runtime") is None


def test_tsc_output_is_parsed_into_diagnostics_and_root_files(tmp_path: Path) -> None:
    from pix3tools.check._typescript import parse_tsc_output

    text = (
        "scripts/a.ts(5,3): error TS2322: Type 'X' is not assignable to type 'Y'.\n"
        "  Types of property 'p' are incompatible.\n"
        "    Type 'string' is not assignable to type 'number'.\n"
        "error TS18003: No inputs were found in config file 'tsconfig.json'.\n"
        "error TS6053: File 'missing.ts' not found.\n"
        "../lib/lib.es5.d.ts\n"
        "  Default library for target 'es2022'\n"
        "scripts/a.ts\n"
        "  Matched by include pattern 'scripts' in 'tsconfig.json'\n"
        "scripts/b.ts\n"
        "  Imported via './b' from file 'scripts/a.ts'\n"
        "main.ts\n"
        "  Part of 'files' list in tsconfig.json\n"
    )
    diagnostics, files = parse_tsc_output(text, tmp_path)
    assert [(d.file, d.line, d.ts_code) for d in diagnostics] == [
        (str(tmp_path / "scripts/a.ts"), 5, 2322),
        ("", None, 6053),
    ]
    assert diagnostics[0].message == (
        "Type 'X' is not assignable to type 'Y'.\n"
        "  Types of property 'p' are incompatible.\n"
        "    Type 'string' is not assignable to type 'number'."
    )
    assert files == [str(tmp_path / "scripts/a.ts"), str(tmp_path / "main.ts")]


def test_tsc_list_files_output_is_every_file_read(tmp_path: Path) -> None:
    from pix3tools.check._typescript import parse_tsc_output

    text = (
        "scripts/a.ts(5,3): error TS2322: Type 'X' is not assignable to type 'Y'.\n"
        "  Types of property 'p' are incompatible.\n"
        f"{tmp_path}/lib/lib.es5.d.ts\n"
        f"{tmp_path}/scripts/b.ts\n"
        f"{tmp_path}/scripts/a.ts\n"
    )
    diagnostics, files = parse_tsc_output(text, tmp_path, explained=False)
    assert [(d.file, d.line, d.ts_code) for d in diagnostics] == [(str(tmp_path / "scripts/a.ts"), 5, 2322)]
    assert files == [str(tmp_path / name) for name in ("lib/lib.es5.d.ts", "scripts/b.ts", "scripts/a.ts")]
