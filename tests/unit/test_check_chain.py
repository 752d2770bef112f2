"""The editor-chain scan (docs/check.md, "The editor chain")."""

from __future__ import annotations

from pathlib import Path

import pytest

from pix3tools.check._chain import lex, scan_chain, scan_module


def kinds(text: str) -> list[str]:
    return [issue.kind for issue in scan_module(text)[0]]


def test_lexer_masks_strings_comments_and_keeps_template_code() -> None:
    text = "const a = 'import.meta.hot'; // import(x)\nconst b = `x${import(y)}z`;\n"
    masked = lex(text).masked
    assert len(masked) == len(text)
    assert "import.meta.hot" not in masked and "import(x)" not in masked
    assert "import(y)" in masked
    assert len(masked.split("\n")) == 3


def test_regex_is_masked_and_division_kept() -> None:
    assert kinds("const r = /import\\(x\\)/;\nconst d = a / b / c;\n") == []
    assert "a / b / c" in lex("const d = a / b / c;").masked
    assert kinds("return /import(x)/.test(s)") == []


def test_hot() -> None:
    assert kinds("if (import.meta.hot) import.meta.hot.accept();") == ["import-meta-hot", "import-meta-hot"]
    assert kinds("import.meta?.hot?.dispose(() => {});") == ["import-meta-hot"]
    assert kinds("import . meta . hot") == ["import-meta-hot"]
    assert kinds("const e = import.meta.env; import.meta.glob('./*.ts');") == []
    assert kinds("x.import.meta.hot; import.meta.hotter") == []


def test_dynamic_imports() -> None:
    assert kinds("import('./a.ts'); import(\"./b.ts\"); import(`./c.ts`);") == []
    assert kinds("import(name)") == ["dynamic-import"]
    assert kinds("import(`./levels/${n}.ts`)") == ["dynamic-import"]
    assert kinds("import('./a' + n)") == ["dynamic-import"]
    assert kinds("import('./a.json', { with: { type: 'json' } })") == []
    assert kinds("loader.import(x); obj.import (y);") == []


def test_stylesheets() -> None:
    text = "import './hud.css'\nimport styles from './a.scss'\nawait import('./b.less')\n"
    assert kinds(text) == ["css-import"] * 3
    assert kinds("import a from './a.css?raw'; import b from './b.css?url'; import c from './c.css?inline';") == []
    assert kinds("const file = 'theme.css'") == []
    assert kinds("export { x } from './y.css'") == ["css-import"]


def test_issue_line_and_text() -> None:
    issues, _ = scan_module("// header\n\nimport './x.css';\n")
    assert [(i.kind, i.line, i.text) for i in issues] == [("css-import", 3, "import './x.css';")]
    long = "import './" + "a" * 200 + ".css';"
    (issue,), _ = scan_module(long)
    assert len(issue.text) == 120 and issue.text.endswith("...")


def test_same_line_order_is_hot_dynamic_css() -> None:
    assert kinds("import './a.css'; import(x); import.meta.hot") == ["import-meta-hot", "dynamic-import", "css-import"]


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_project_walk(tmp_path: Path) -> None:
    write(tmp_path, "scripts/Player.ts", "import { t } from '../lib/tuning.js';\nimport * as THREE from 'three';\n")
    write(tmp_path, "lib/tuning.ts", "export const t = () => import('./x.ts');\nexport * from './deep';\n")
    write(tmp_path, "lib/deep/index.ts", "if (import.meta.hot) {}\n")
    write(tmp_path, "scripts/Player.spec.ts", "import.meta.hot\n")
    write(tmp_path, "design/tests/bots/dodge.ts", "import { aim } from '/design/tests/lib/aim.ts';\n")
    write(tmp_path, "design/tests/lib/aim.ts", "import './aim.css';\nexport const aim = 1;\n")
    write(tmp_path, "src/main.ts", "import.meta.hot\n")
    scan = scan_chain(tmp_path)
    assert scan.files == [
        "scripts/Player.ts",
        "design/tests/bots/dodge.ts",
        "lib/tuning.ts",
        "design/tests/lib/aim.ts",
        "lib/deep/index.ts",
    ]
    assert [(i.kind, i.file, i.line, i.via) for i in scan.issues] == [
        ("css-import", "design/tests/lib/aim.ts", 1, "design/tests/bots/dodge.ts"),
        ("import-meta-hot", "lib/deep/index.ts", 1, "scripts/Player.ts"),
    ]


@pytest.mark.parametrize("folder", ["node_modules", ".git", "dist", ".pix3"])
def test_skipped_folders(tmp_path: Path, folder: str) -> None:
    write(tmp_path, f"scripts/{folder}/x.ts", "import.meta.hot\n")
    write(tmp_path, "scripts/a.ts", f"import '../{folder}/y.ts';\n")
    write(tmp_path, f"{folder}/y.ts", "import.meta.hot\n")
    scan = scan_chain(tmp_path)
    assert scan.files == ["scripts/a.ts"] and scan.issues == []


def test_outside_project_not_scanned(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write(root, "scripts/a.ts", "import '../../outside.ts';\n")
    write(tmp_path, "outside.ts", "import.meta.hot\n")
    assert scan_chain(root).files == ["scripts/a.ts"]


def test_unterminated_constructs_do_not_crash() -> None:
    for text in ("'abc", "`abc ${ x", "/* never", "/abc", "x = `a${`b${c}`}`; import.meta.hot"):
        lex(text)
    assert kinds("x = `a${`b${c}`}`; import.meta.hot") == ["import-meta-hot"]
