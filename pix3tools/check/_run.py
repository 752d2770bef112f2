"""The `pix3 check` pipeline (docs/check.md, "Pipeline").

Run in the documented order, with one exception for speed: tsc starts as soon as the tsconfig and
TypeScript are known (:mod:`pix3tools.check._begin`, before this module is even imported by the
command) and everything that does not need its answer (validate, the version gate, the kit, the editor
chain, the hashes) runs while it works. The report is the same as in that order: the
diagnostics are sorted, and within one code they keep the documented order.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pix3tools._diagnostic import Diagnostic
from pix3tools.check._begin import Begun, CheckOptions, SyncFn, begin_check
from pix3tools.check._layout import Layout
from pix3tools.check._typescript import TsResult, TypeScriptUnavailable, finish_typecheck
from pix3tools.core import CLI_VERSION
from pix3tools.core.nodemodules import installed_version
from pix3tools.core.viteadvisories import advisories_for

if TYPE_CHECKING:
    from pix3tools.check._chain import ChainIssue

ValidateFn = Callable[[Path, bool], Mapping[str, Any]]
__all__ = ["CheckOptions", "SyncFn", "finish_check", "human_report", "run_check", "validate_project"]

_LOCKSTEP = ("@pix3/cli", "@pix3/vite-plugin", "@pix3/editor-core")
# In pix3-types mode the @pix3/runtime declarations are generated from the scene model, which does
# not know every name the runtime exports: importing one of those is not the script's fault, so
# "no exported member" / "cannot find module" errors naming that module are not reported (three's
# declarations are the published ones: every error against them is).
_GENERATED_GAPS = (2305, 2724, 2614, 2307)
_GENERATED_MODULE = re.compile(r"""['"]@pix3/runtime(?:/[^'"]*)?['"]""")

_CHAIN_WHAT = {
    "import-meta-hot": ("W_EDITOR_HMR_API", "`import.meta.hot`",
        "remove it: the editor re-imports scripts on pix3_sync, a script needs no HMR code (put HMR handling in "
        "src/main.ts if the game wants it)"),
    "css-import": ("W_EDITOR_CSS_IMPORT", "a stylesheet import",
        "import the stylesheet from the game's entry (src/main.ts), or as a string with `?inline`"),
    "dynamic-import": ("W_EDITOR_DYNAMIC_IMPORT", "a non-literal `import()`",
        "use a plain string, import('./levels/one.ts'), a static import, or import.meta.glob for a table of modules"),
}  # fmt: skip
_CHAIN_TAIL = (
    ". Vite then loads /@vite/client into the editor page, and the game's full-reload reaches the editor "
    "(unsaved edits are lost)."
)


@dataclass
class Typecheck:
    ok: bool = True
    errors: int = 0
    tsconfig: str = ""
    mode: str = ""
    files: int = 0
    typescript: dict[str, str] | None = None
    skipped: str | None = None
    ran: bool = False
    root_files: list[str] = field(default_factory=list)


def validate_project(root: Path, hydrate: bool) -> Mapping[str, Any]:
    """validate's ``--json`` report of the whole project: the ``validate`` step of :func:`run_check`
    (imported here, not at the top: it runs while tsc works, docs/check.md "Speed")."""
    from pix3tools.validate import run_validate

    report: Mapping[str, Any] = run_validate(root, None, hydrate=hydrate).to_json()
    return report


def _ms(seconds: float) -> int:
    return int(seconds * 1000 + 0.5)


def _project_path(root: Path, file: str) -> str:
    path = Path(file)
    if not path.is_absolute():
        path = root / path
    try:
        return Path(os.path.normpath(path)).relative_to(root).as_posix()
    except ValueError:
        return os.path.normpath(path)


def _kit_version(root: Path) -> str | None:
    """``metadata.agentKit.version`` of the manifest; any parse or shape problem: no kit version
    (docs/check.md). Imported here, not at the top, as validate is (docs/check.md "Speed")."""
    from pix3tools.project import load_manifest

    manifest = load_manifest(root)
    data = manifest.data if manifest is not None else None
    metadata = data.get("metadata") if isinstance(data, dict) else None
    kit = metadata.get("agentKit") if isinstance(metadata, dict) else None
    version = kit.get("version") if isinstance(kit, dict) else None
    return version if isinstance(version, str) else None


def _hash_into(files: dict[str, str], root: Path, paths: list[str]) -> None:
    """SHA-256 of the raw bytes of each project path not hashed yet (absolute paths are not ours)."""
    for rel in paths:
        if rel in files or rel.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
            continue
        try:
            files[rel] = hashlib.sha256((root / rel).read_bytes()).hexdigest()
        except OSError:
            continue


def _version_gate(root: Path) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    runtime = installed_version(root, "@pix3/runtime")
    if runtime is not None and runtime != CLI_VERSION:
        found.append(Diagnostic(
            "E_RUNTIME_VERSION", "node_modules/@pix3/runtime/package.json",
            f"The project installs @pix3/runtime {runtime}, but this CLI validates and runs scenes with the "
            f"@pix3/runtime {CLI_VERSION} bundled into it — its answers would be about an engine the game does not ship.",
            fix=f"run the project's own CLI (npx pix3 …, @pix3/cli {runtime}), or npm install "
            f"@pix3/runtime@{CLI_VERSION} @pix3/cli@{CLI_VERSION}",
        ))  # fmt: skip
    for name in _LOCKSTEP:
        version = installed_version(root, name)
        if version is not None and version != CLI_VERSION:
            found.append(Diagnostic(
                "W_PIX3_VERSION_MISMATCH", f"node_modules/{name}/package.json",
                f"{name} {version} is installed; this CLI is {CLI_VERSION}. The @pix3/* packages are "
                "released in lockstep, so the editor or the build may differ from what the kit and the CLI describe.",
                fix=f"npm install {name}@{CLI_VERSION}",
            ))  # fmt: skip
    vite = installed_version(root, "vite")
    advised = advisories_for(vite, windows=sys.platform == "win32") if vite is not None else None
    if advised is not None:
        found.append(
            Diagnostic("W_VITE_ADVISORY", "node_modules/vite/package.json", advised.message + ".", fix=advised.fix)
        )
    return found


def _chain_diagnostic(issue: ChainIssue) -> Diagnostic:
    code, what, fix = _CHAIN_WHAT[issue.kind]
    via = f" (imported from {issue.via})" if issue.via != issue.file else ""
    message = f"{what} in a module the editor runs{via}: `{issue.text}`{_CHAIN_TAIL}"
    return Diagnostic(code, issue.file, message, line=issue.line, fix=fix)


def _generated_gap(layout: Layout, code: int, message: str) -> bool:
    return layout.mode == "pix3-types" and code in _GENERATED_GAPS and bool(_GENERATED_MODULE.search(message))


def run_check(
    root: Path,
    options: CheckOptions,
    *,
    home: Path,
    validate: ValidateFn,
    sync: SyncFn,
    env: Mapping[str, str] | None = None,
    install: Callable[[Path], str | None] | None = None,
    install_types: Callable[[Path], str | None] | None = None,
) -> dict[str, Any]:
    """Run the whole pipeline and return the report (the ``--json`` shape, keys in order)."""
    begun = begin_check(root, options, home=home, sync=sync, env=env, install=install, install_types=install_types)
    return finish_check(begun, validate)


def finish_check(begun: Begun, validate: ValidateFn) -> dict[str, Any]:
    """Everything after :func:`begin_check` started tsc: the steps that do not need its answer run
    while it works, then its answer is read and the report made."""
    root, options, started, flushed, layout = begun.root, begun.options, begun.started, begun.flushed, begun.layout
    typescript, process, unavailable, own = begun.typescript, begun.process, begun.unavailable, begun.own
    ts_elapsed = begun.ts_elapsed
    status = getattr(flushed, "status", None)
    notes: list[str] = []
    typecheck = Typecheck(tsconfig=layout.tsconfig, mode=layout.mode, skipped=layout.skipped)

    # 2–3. Validate (its time includes the flush, as the reference reports it).
    validated = validate(root, options.hydrate)
    validate_ms = _ms(time.perf_counter() - started)
    notes.extend(validated.get("notes", []))
    if status == "flushed":
        notes.append(f"editor at {flushed.url} flushed its unsaved scenes")
    if layout.note:
        notes.append(layout.note)

    # 7–9 while tsc works: none needs its answer.
    from pix3tools.check._chain import scan_chain

    gate = _version_gate(root)
    kit_version = _kit_version(root)
    kit: list[Diagnostic] = []
    if kit_version is not None and kit_version != CLI_VERSION:
        kit.append(Diagnostic("W_KIT_OUTDATED", "pix3project.yaml",
                              f"The agent kit here is {kit_version}; this CLI is {CLI_VERSION}.",
                              path=("metadata", "agentKit", "version"),
                              fix="pix3 kit --update (it never overwrites kit files you edited)"))  # fmt: skip
    chain = scan_chain(root)
    files: dict[str, str] = {f["file"]: f["sha256"] for f in validated.get("files", [])}
    _hash_into(files, root, chain.files)

    # 5–6. Collect the type-check.
    ts_wait = time.perf_counter()
    result: TsResult | None = None
    if process is not None:
        try:
            result = finish_typecheck(process)
        except TypeScriptUnavailable as error:
            unavailable.append(error)
    ts_elapsed += time.perf_counter() - ts_wait
    for missing in unavailable:
        own.append(Diagnostic("E_TYPECHECK_UNAVAILABLE", layout.tsconfig, str(missing), fix=missing.fix or None))
    if result is not None and typescript is not None:
        typecheck.ran = True
        typecheck.typescript = {"version": result.version, "source": typescript.source}
        typecheck.root_files = sorted(_project_path(root, f) for f in result.files)
        typecheck.files = len(result.files)
        hidden = 0
        for d in result.diagnostics:
            if _generated_gap(layout, d.ts_code, d.message):
                hidden += 1
                continue
            file = _project_path(root, d.file) if d.file else layout.tsconfig
            line = d.line if d.file else None
            own.append(Diagnostic("E_TYPE", file, f"TS{d.ts_code}: {d.message}", line=line))
        if hidden:
            notes.append(
                f"{hidden} import(s) from @pix3/runtime of names its generated declarations do not list were not "
                "type-checked (they declare the scene model's node types and Script only)."
            )
    own.extend(gate)
    own.extend(kit)
    own.extend(_chain_diagnostic(issue) for issue in chain.issues)

    # 10. Files and hashes (the scripts tsc read; the chain's are done), report.
    from pix3tools.validate import locale_key

    _hash_into(files, root, typecheck.root_files)
    diagnostics = sorted(
        [*validated.get("diagnostics", []), *(d.to_json(located_first=True) for d in own)],
        key=lambda d: (locale_key(d["file"]), d.get("line") or 0, locale_key(d["code"])),
    )
    errors = sum(d["severity"] == "error" for d in diagnostics)
    warnings = sum(d["severity"] == "warning" for d in diagnostics)
    typecheck.errors = sum(
        d["code"] in ("E_TYPE", "E_TYPECHECK_UNAVAILABLE", "E_DEPENDENCIES_MISSING") for d in diagnostics
    )
    typecheck.ok = typecheck.errors == 0
    return {
        "ok": errors == 0,
        "projectRoot": str(root),
        "errorCount": errors,
        "warningCount": warnings,
        "level2": validated.get("level2", {"state": "disabled"}),
        "files": [{"file": name, "sha256": files[name]} for name in sorted(files)],
        "diagnostics": diagnostics,
        "notes": notes,
        "typecheck": {
            "ok": typecheck.ok,
            "errors": typecheck.errors,
            "tsconfig": typecheck.tsconfig,
            "mode": typecheck.mode,
            "files": typecheck.files,
            "typescript": typecheck.typescript,
            "skipped": typecheck.skipped,
        },
        "kit": {"version": kit_version, "cliVersion": CLI_VERSION, "upToDate": kit_version == CLI_VERSION},
        "timingsMs": {
            "validate": validate_ms,
            "typecheck": _ms(ts_elapsed),
            "total": _ms(time.perf_counter() - started),
        },
    }


_PER_CODE = 40  # at most this many lines per code in the human report


def human_report(report: Mapping[str, Any]) -> str:
    out: list[str] = []
    shown: dict[str, int] = {}
    hidden = 0
    for d in report["diagnostics"]:
        shown[d["code"]] = shown.get(d["code"], 0) + 1
        if shown[d["code"]] > _PER_CODE:
            hidden += 1
            continue
        where = f"{d['file']}:{d['line']}" if d.get("line") else d["file"]
        node = f" [{d['nodeId']}]" if d.get("nodeId") else ""
        out.append(f"{where}  {d['severity']}  {d['code']}{node}  {d['message']}\n")
        if d.get("path"):
            out.append(f"    at {d['path']}\n")
        if d.get("fix"):
            out.append(f"    fix: {d['fix']}\n")
    if hidden:
        out.append(f"… {hidden} more (pix3 check --json lists them all)\n")
    out.extend(f"note: {note}\n" for note in report["notes"])
    tc = report["typecheck"]
    if tc["typescript"] is not None:
        ts = tc["typescript"]
        part = (
            f"typecheck {tc['files']} file(s) with TypeScript {ts['version']} ({ts['source']}, {tc['tsconfig']}): "
            f"{tc['errors']} error(s)"
        )
    elif tc["skipped"]:
        part = f"typecheck skipped: {tc['skipped']}"
    else:
        part = "typecheck did not run"
    level2 = report["level2"]
    if level2.get("state") == "ran":
        l2 = f"level 2 hydrated {level2['filesHydrated']} file(s)"
        if level2.get("filesSkippedForScripts"):
            l2 += f", {level2['filesSkippedForScripts']} SKIPPED (scripts do not compile — user: components unchecked)"
    elif level2.get("state") == "disabled":
        l2 = "level 2 off"
    else:
        l2 = f"level 2 skipped: {level2.get('reason', '')}"
    out.append(f"{part}; {l2}.\n")
    if report["kit"]["version"] is None:
        out.append("kit: none in this project (pix3 kit installs it).\n")
    verdict = "OK" if report["ok"] else "FAILED"
    out.append(
        f"{verdict}: {len(report['files'])} file(s) checked, {report['errorCount']} error(s), "
        f"{report['warningCount']} warning(s) in {report['timingsMs']['total']} ms.\n"
    )
    return "".join(out)
