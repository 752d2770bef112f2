"""`pix3 check` as a real process (docs/check.md), with a real TypeScript."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pix3tools.core import CLI_VERSION
from pix3tools.scripttypes import THREE_TYPES_VERSION
from tests.support.node import node_modules_dir, seed_three_types
from tests.support.pix3 import run_pix3

pytestmark = pytest.mark.node  # `pix3 check` runs the test clients' TypeScript

TYPESCRIPT = node_modules_dir() / "typescript"

GAME_RULES = """import { Script } from '@pix3/runtime';

export class GameRules extends Script {
  speed = 2;
  onUpdate(dt: number): void {
    this.speed += dt;
  }
}
"""

SCENE = """version: 1.0.0
root:
  - id: main
    type: Group2D
    name: Main
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "game"
    (root / "scripts").mkdir(parents=True)
    (root / "scenes").mkdir()
    (root / "pix3project.yaml").write_text(
        f"version: 1.0.0\nname: game\nmetadata:\n  agentKit:\n    version: {CLI_VERSION}\n"
    )
    (root / "scripts" / "GameRules.ts").write_text(GAME_RULES)
    (root / "scenes" / "main.pix3scene").write_text(SCENE)
    return root


@pytest.fixture(autouse=True)
def _three_types_cached(request: pytest.FixtureRequest, node_modules: Path) -> None:
    """Tests with a private PIX3_HOME get three's types in its cache, as if installed before."""
    if "pix3_home" in request.fixturenames:
        seed_three_types(request.getfixturevalue("pix3_home"), node_modules)


def check(root: Path, *args: str, home: Path | None = None, **env: str) -> tuple[int, dict[str, object], str]:
    environment = {"PIX3_TYPESCRIPT": str(TYPESCRIPT), **env}
    if home is not None:
        environment["PIX3_HOME"] = str(home)
    done = run_pix3("check", "--json", "--no-hydrate", *args, cwd=root, env=environment, timeout=120)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def codes(report: dict[str, object]) -> list[str]:
    diagnostics = report["diagnostics"]
    assert isinstance(diagnostics, list)
    return [d["code"] for d in diagnostics]


def test_fresh_project_is_ok_in_pix3_types_mode(project: Path, pix3_home: Path) -> None:
    code, report, _ = check(project)
    assert code == 0, report
    assert report["ok"] is True and report["errorCount"] == 0
    assert report["typecheck"] == {
        "ok": True, "errors": 0, "tsconfig": ".pix3/tsconfig.check.json", "mode": "pix3-types", "files": 1,
        "typescript": {"version": "5.8.3", "source": "env"}, "skipped": None,
    }  # fmt: skip
    files = {f["file"]: f["sha256"] for f in report["files"]}  # type: ignore[attr-defined]
    for rel in ("scripts/GameRules.ts", "scenes/main.pix3scene"):
        assert files[rel] == hashlib.sha256((project / rel).read_bytes()).hexdigest()
    assert report["kit"] == {"version": CLI_VERSION, "cliVersion": CLI_VERSION, "upToDate": True}
    assert list(report) == ["ok", "projectRoot", "errorCount", "warningCount", "level2", "files", "diagnostics",
                            "notes", "typecheck", "kit", "timingsMs"]  # fmt: skip
    assert list(report["timingsMs"]) == ["validate", "typecheck", "total"]  # type: ignore[call-overload]


def test_type_error_is_reported_with_file_and_line(project: Path, pix3_home: Path) -> None:
    (project / "scripts" / "Broken.ts").write_text(
        "export class Broken {\n  a?: { b: number };\n  run(): void {\n    const x = 1;\n    this.a?.b = x;\n  }\n}\n"
    )
    code, report, _ = check(project, "--project", str(project))
    assert code == 1
    first = next(d for d in report["diagnostics"] if d["code"] == "E_TYPE")  # type: ignore[attr-defined]
    assert (first["severity"], first["file"], first["line"]) == ("error", "scripts/Broken.ts", 5)
    assert first["message"].startswith("TS") and ": " in first["message"]
    assert report["typecheck"]["ok"] is False  # type: ignore[index]
    assert report["typecheck"]["errors"] == codes(report).count("E_TYPE")  # type: ignore[index]
    human = run_pix3("check", "--no-hydrate", cwd=project, env={"PIX3_TYPESCRIPT": str(TYPESCRIPT)}, timeout=120)
    assert human.returncode == 1
    assert "scripts/Broken.ts:5  error  E_TYPE  TS" in human.stdout
    assert human.stdout.splitlines()[-1].startswith("FAILED: ")


def test_types_are_rewritten_when_deleted(project: Path, pix3_home: Path) -> None:
    check(project)
    import shutil

    shutil.rmtree(project / ".pix3" / "types")
    (project / ".pix3" / "tsconfig.check.json").unlink()
    code, report, _ = check(project)
    assert code == 0
    assert (project / ".pix3" / "types" / "@pix3" / "runtime" / "index.d.ts").is_file()
    assert any(n.startswith("Wrote the @pix3/runtime ") and " types" in n for n in report["notes"])  # type: ignore[attr-defined]


def test_kit_outdated_is_a_warning(project: Path, pix3_home: Path) -> None:
    text = (project / "pix3project.yaml").read_text().replace(CLI_VERSION, "0.0.1")
    (project / "pix3project.yaml").write_text(text)
    code, report, _ = check(project)
    assert code == 0 and report["ok"] is True
    assert report["kit"] == {"version": "0.0.1", "cliVersion": CLI_VERSION, "upToDate": False}
    (kit,) = [d for d in report["diagnostics"] if d["code"] == "W_KIT_OUTDATED"]  # type: ignore[attr-defined]
    assert "pix3 kit --update" in kit["fix"] and kit["path"] == "metadata.agentKit.version"


def own_tsconfig(root: Path) -> None:
    (root / "tsconfig.json").write_text(
        json.dumps({"compilerOptions": {"strict": True, "noEmit": True, "skipLibCheck": True}, "include": ["src"]})
    )
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "main.ts").write_text("export const n: number = 1;\n")


def test_own_tsconfig_with_an_old_runtime(project: Path, pix3_home: Path) -> None:
    own_tsconfig(project)
    pkg = project / "node_modules" / "@pix3" / "runtime"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text('{"name": "@pix3/runtime", "version": "1.2.0"}')
    (project / "pix3project.yaml").write_text("version: 1.0.0\n")
    code, report, _ = check(project)
    assert report["typecheck"]["mode"] == "project" and report["typecheck"]["tsconfig"] == "tsconfig.json"  # type: ignore[index]
    assert report["typecheck"]["ok"] is True  # type: ignore[index]
    assert not (project / ".pix3" / "types").exists()
    assert report["kit"]["version"] is None  # type: ignore[index]
    (gate,) = [d for d in report["diagnostics"] if d["code"] == "E_RUNTIME_VERSION"]  # type: ignore[attr-defined]
    assert "1.2.0" in gate["message"] and gate["file"] == "node_modules/@pix3/runtime/package.json"
    assert code == 1


def test_own_tsconfig_empty_node_modules_warns(project: Path, pix3_home: Path) -> None:
    own_tsconfig(project)
    (project / "node_modules").mkdir()
    code, report, _ = check(project)
    assert "W_RUNTIME_NOT_INSTALLED" in codes(report) and "E_DEPENDENCIES_MISSING" not in codes(report)
    assert code == 0


def test_own_tsconfig_without_node_modules(project: Path, pix3_home: Path) -> None:
    own_tsconfig(project)
    (project / "package.json").write_text('{"name": "game"}')
    (project / "src" / "uses.ts").write_text("import a from 'a';\nimport b from 'b';\nimport c from 'c';\n")
    code, report, _ = check(project)
    errors = [d for d in report["diagnostics"] if d["severity"] == "error"]  # type: ignore[attr-defined]
    assert [(d["code"], d["file"], d["fix"]) for d in errors] == [
        ("E_DEPENDENCIES_MISSING", "package.json", "npm install")
    ]
    assert "W_RUNTIME_NOT_INSTALLED" not in codes(report)
    tc = report["typecheck"]
    assert (tc["ok"], tc["errors"], tc["typescript"]) == (False, 1, None)  # type: ignore[index]
    assert "npm install" in tc["skipped"]  # type: ignore[index]
    assert code == 1
    human = run_pix3("check", "--no-hydrate", cwd=project)
    assert "typecheck skipped: dependencies not installed" in human.stdout


def test_unpublished_packages_are_named_with_what_works_today(project: Path, pix3_home: Path) -> None:
    """`npm install` cannot help while package.json names the unpublished @pix3 packages (npm
    answers E404): the diagnostic says so and gives the kit's way, which works
    (tests/integration/test_new_project.py follows it on a new project)."""
    own_tsconfig(project)
    package = {"dependencies": {"@pix3/runtime": CLI_VERSION, "three": "~0.183.2"},
               "devDependencies": {"@pix3/cli": CLI_VERSION, "@pix3/vite-plugin": CLI_VERSION}}  # fmt: skip
    (project / "package.json").write_text(json.dumps(package))
    code, report, _ = check(project)
    (missing,) = [d for d in report["diagnostics"] if d["severity"] == "error"]  # type: ignore[attr-defined]
    assert (missing["code"], missing["file"]) == ("E_DEPENDENCIES_MISSING", "package.json")
    assert missing["message"].startswith("This project has its own tsconfig.json")  # the reference's sentence first
    assert "names @pix3/runtime, @pix3/cli, @pix3/vite-plugin, which are not published on npm yet" in missing["message"]
    assert "E404" in missing["message"]
    assert missing["fix"].startswith("mv tsconfig.json tsconfig.npm.json && pix3 kit")
    assert "npm cannot install them yet" in report["typecheck"]["skipped"]  # type: ignore[index]
    assert code == 1
    human = run_pix3("check", "--no-hydrate", cwd=project).stdout
    assert "fix: mv tsconfig.json tsconfig.npm.json && pix3 kit" in human and "fix: npm install" not in human


def test_offline_without_typescript(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "empty-home"
    done = run_pix3("check", "--json", "--no-hydrate", "--offline", cwd=project,
                    env={"PIX3_HOME": str(home), "PIX3_TYPESCRIPT": "", "PATH": "/usr/bin:/bin"})  # fmt: skip
    report = json.loads(done.stdout)
    three, typescript = [d for d in report["diagnostics"] if d["code"] == "E_TYPECHECK_UNAVAILABLE"]
    assert "npm install --prefix" in typescript["fix"] and "typescript@5.8.3" in typescript["fix"]
    assert "npm install --prefix" in three["fix"] and f"@types/three@{THREE_TYPES_VERSION}" in three["fix"]
    assert report["ok"] is False and report["typecheck"]["typescript"] is None
    assert report["typecheck"]["errors"] == 2
    assert done.returncode == 1
    assert not home.exists()  # --offline installs nothing


def test_outside_a_project(tmp_path: Path) -> None:
    done = run_pix3("check", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"pix3 check: no pix3project.yaml in {tmp_path} or any parent folder. "
        "Run it inside a Pix3 project, or pass --project <dir>.\n"
    )
    done = run_pix3("check", "--project", "nowhere", cwd=tmp_path)
    assert done.returncode == 2 and f"in {tmp_path / 'nowhere'}. Run it" in done.stderr


def test_argument_errors_and_help(tmp_path: Path) -> None:
    done = run_pix3("check", "--bogus", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("pix3 check: unknown argument --bogus\n\nUsage: pix3 check")
    done = run_pix3("check", "--project", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("pix3 check: --project needs a folder\n\n")
    assert run_pix3("check", "--help", "--bogus", cwd=tmp_path).returncode == 2  # parse errors win
    done = run_pix3("check", "--help", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("Usage: pix3 check")
    assert "\n  E_RUNTIME_VERSION" in done.stdout and "Codes added to validate's" in done.stdout


def test_version_mismatch_and_editor_chain(project: Path, pix3_home: Path) -> None:
    for name, version in (("@pix3/cli", "1.6.2"), ("@pix3/editor-core", CLI_VERSION)):
        pkg = project / "node_modules" / name
        pkg.mkdir(parents=True)
        (pkg / "package.json").write_text(json.dumps({"version": version}))
    (project / "scripts" / "Hud.ts").write_text(
        "import './hud.css';\nif (import.meta.hot) {}\nexport const load = (n: string) => import(n);\n"
    )
    code, report, _ = check(project)
    found = codes(report)
    assert found.count("W_PIX3_VERSION_MISMATCH") == 1
    assert {"W_EDITOR_CSS_IMPORT", "W_EDITOR_HMR_API", "W_EDITOR_DYNAMIC_IMPORT"} <= set(found)
    hud = [d for d in report["diagnostics"] if d["file"] == "scripts/Hud.ts"]  # type: ignore[attr-defined]
    assert [(d["code"], d["line"]) for d in hud] == [
        ("W_EDITOR_CSS_IMPORT", 1), ("W_EDITOR_HMR_API", 2), ("W_EDITOR_DYNAMIC_IMPORT", 3),
    ]  # fmt: skip
    assert hud[0]["message"].startswith("a stylesheet import in a module the editor runs: `import './hud.css';`.")
    assert code == 0


def test_a_vite_with_known_advisories_is_a_warning(project: Path, pix3_home: Path, node_modules: Path) -> None:
    """The project's Vite read from its package.json (the pinned vulnerable 6.2.0): a warning naming
    the version that fixes it; the check still passes. The current Vite gets none."""
    (project / "node_modules").mkdir()
    (project / "node_modules" / "vite").symlink_to(node_modules / "vite-6.2.0")
    code, report, _ = check(project)
    advised = [d for d in report["diagnostics"] if d["code"] == "W_VITE_ADVISORY"]  # type: ignore[attr-defined]
    assert [(d["file"], d["severity"]) for d in advised] == [("node_modules/vite/package.json", "warning")]
    assert "Vite 6.2.0" in advised[0]["message"] and "CVE-2026-39363" in advised[0]["message"]
    assert advised[0]["fix"] == "npm install vite@6.4.5 (or later)"
    assert code == 0
    (project / "node_modules" / "vite").unlink()
    (project / "node_modules" / "vite").symlink_to(node_modules / "vite")
    assert "W_VITE_ADVISORY" not in codes(check(project)[1])


class _FlushRefuser(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self._answer(200, {"ok": True})

    def do_POST(self) -> None:
        self._answer(200, {"ok": False, "reason": "the tab is busy"})

    def _answer(self, status: int, body: dict[str, object]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def refusing_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FlushRefuser)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_editor_that_does_not_flush(project: Path, pix3_home: Path, refusing_server: str) -> None:
    (project / ".pix3").mkdir(exist_ok=True)
    (project / ".pix3" / "dev.json").write_text(json.dumps({"url": refusing_server}))
    code, report, _ = check(project)
    (unsynced,) = [d for d in report["diagnostics"] if d["code"] == "E_EDITOR_UNSYNCED"]  # type: ignore[attr-defined]
    assert list(unsynced) == ["code", "severity", "file", "message"]
    assert unsynced["message"] == (
        f"the Pix3 editor at {refusing_server} did not flush its unsaved scenes (the tab is busy); "
        "save in the editor and retry, or pass --no-sync to read the disk as it is"
    )
    assert code == 1
    code, report, _ = check(project, "--no-sync")
    assert "E_EDITOR_UNSYNCED" not in codes(report) and code == 0


def test_dead_dev_server_is_ignored(project: Path, pix3_home: Path) -> None:
    (project / ".pix3").mkdir(exist_ok=True)
    (project / ".pix3" / "dev.json").write_text(json.dumps({"url": "http://127.0.0.1:9/"}))
    code, report, _ = check(project)
    assert code == 0 and "E_EDITOR_UNSYNCED" not in codes(report)
