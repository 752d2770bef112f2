"""``.pix3/types/`` and ``.pix3/tsconfig.check.json``: what a project without its own tsconfig.json
is type-checked against. ``pix3 kit`` and ``pix3 check`` write the same files through ``prepare_types``.

``version.json`` records the pix3net version and a stamp of everything written; a copy whose
record differs (another build, other three types, a tsconfig edited by hand) is written again.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from pix3tools.core import CLI_VERSION, atomic_write
from pix3tools.scripttypes._runtime import SOURCES, declarations
from pix3tools.scripttypes._three import COPIED, THREE_TYPES_VERSION, Installer, resolve_three_types

TYPES = Path(".pix3") / "types"
CHECK_TSCONFIG_PATH = ".pix3/tsconfig.check.json"
EXTENDS_LINE = '{ "extends": "./.pix3/tsconfig.check.json" }'
# How a project whose own tsconfig.json wants the unpublished @pix3 packages in node_modules gets
# checked against these types instead: the kit then writes EXTENDS_LINE as its tsconfig.json. Said by
# `pix3 new` and by check's E_DEPENDENCIES_MISSING; tests/integration/test_new_project.py runs it.
USE_GENERATED_TYPES = "mv tsconfig.json tsconfig.npm.json && pix3 kit"
_VITE_ENV = Path(__file__).with_name("data") / "pix3-vite-env"

# The folders `.pix3/tsconfig.check.json` includes, each as `../<folder>/**/*.ts` (a unit test
# holds the two together).
CHECK_INCLUDE = ("scripts", "src/scripts", "design/tests")
_PACKAGE_FOLDERS = ("node_modules", "bower_components", "jspm_packages")

CHECK_TSCONFIG = """// Written by pix3 kit / pix3 check (pix3net); written again when pix3net's script types change.
// Type-checks the project's scripts and bot tests against ./types/: the @pix3/runtime declarations
// generated from pix3net's scene model, and three's published ones (@types/three).
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "bundler",
    "lib": ["ES2022", "DOM", "DOM.Iterable"],
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true,
    "isolatedModules": true,
    "allowImportingTsExtensions": true,
    "typeRoots": ["./types/@types"],
    "paths": {
      "@pix3/runtime": ["./types/@pix3/runtime/index.d.ts"],
      "three": ["./types/@types/three/index.d.ts"],
      "three/addons": ["./types/@types/three/examples/jsm/Addons.d.ts"],
      "three/addons/*": ["./types/@types/three/examples/jsm/*"],
      "three/webgpu": ["./types/@types/three/build/three.webgpu.d.ts"],
      "three/tsl": ["./types/@types/three/build/three.tsl.d.ts"],
      "three/*": ["./types/@types/three/*"]
    }
  },
  "include": ["../scripts/**/*.ts", "../src/scripts/**/*.ts", "../design/tests/**/*.ts"]
}
"""


def has_own_tsconfig(root: Path) -> bool:
    """A root tsconfig.json that is not the kit's one-line ``extends`` (an unreadable one counts)."""
    path = root / "tsconfig.json"
    if not path.exists():
        return False
    try:
        return path.read_text(encoding="utf-8").strip() != EXTENDS_LINE
    except (OSError, UnicodeDecodeError):
        return True


def check_root_files(root: Path, listed: Iterable[str]) -> list[str]:
    """Which of the files tsc read (``--listFiles``, absolute) are the root files of
    `.pix3/tsconfig.check.json`: those its ``include`` patterns match, as TypeScript matches a
    ``<folder>/**/*.ts`` pattern — below the folder, no directory that starts with a dot or is a
    package folder (``node_modules``, ``bower_components``, ``jspm_packages``), a name ending in
    ``.ts`` that does not start with a dot (``.ts`` itself matches), and ``x.d.ts`` not beside an
    included ``x.ts``. Every root file is in the program, so this is tsc's own root list, without
    asking tsc to explain every file it read (docs/check.md, "Speed")."""
    bases = tuple((root / folder).as_posix() + "/" for folder in CHECK_INCLUDE)
    matched: dict[str, str] = {}  # posix form → as listed (string work: ~500 Path objects cost 2 ms)
    for file in listed:
        posix = file.replace(os.sep, "/")
        if not posix.startswith(bases):
            continue
        base = next(b for b in bases if posix.startswith(b))
        *folders, name = posix[len(base) :].split("/")
        if any(not f or f.startswith(".") or f in _PACKAGE_FOLDERS for f in folders):
            continue
        if name.endswith(".ts") and (name == ".ts" or not name.startswith(".")):
            matched[posix] = file
    return [f for p, f in matched.items() if not (p.endswith(".d.ts") and p[: -len(".d.ts")] + ".ts" in matched)]


def _generated() -> dict[str, bytes]:
    """The files pix3net writes itself, under ``.pix3/types/`` (the copies of three's come on top)."""
    package = {"name": "@pix3/runtime", "version": CLI_VERSION, "types": "index.d.ts"}
    files = {
        "@pix3/runtime/index.d.ts": declarations(CLI_VERSION).encode("utf-8"),
        "@pix3/runtime/package.json": (json.dumps(package, indent=2) + "\n").encode("utf-8"),
    }
    for path in sorted(_VITE_ENV.iterdir()):
        files[f"@types/pix3-vite-env/{path.name}"] = path.read_bytes()
    return files


def manifest() -> dict[str, object]:
    """What ``version.json`` records: the versions, and a stamp of the sources of every file written
    (the generator, the scene model's schemas, the Vite env, the tsconfig) — cheap to compute on
    every check, where generating the declarations would import the scene model first."""
    import hashlib  # here: a project with its own tsconfig.json does not need it before tsc starts

    digest = hashlib.sha256(CHECK_TSCONFIG.encode("utf-8"))
    for path in (*SOURCES, *sorted(_VITE_ENV.iterdir())):
        digest.update(b"\0" + path.name.encode("utf-8") + b"\0" + path.read_bytes())
    return {
        "format": 1,
        "cliVersion": CLI_VERSION,
        "runtimeVersion": CLI_VERSION,
        "threeTypesVersion": THREE_TYPES_VERSION,
        "sourceStamp": digest.hexdigest()[:16],
    }


def is_current(root: Path, wanted: dict[str, object]) -> bool:
    try:
        have = json.loads((root / TYPES / "version.json").read_text(encoding="utf-8"))
        config = (root / CHECK_TSCONFIG_PATH).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return False
    return (
        have == wanted
        and config == CHECK_TSCONFIG
        and (root / TYPES / "@types" / "three" / "index.d.ts").is_file()
        and (root / TYPES / "@pix3" / "runtime" / "index.d.ts").is_file()
    )


def _write(root: Path, node_modules: Path, generated: dict[str, bytes], wanted: dict[str, object]) -> None:
    """Build the folder beside the old one, then swap it in: a reader never sees half of it."""
    final = root / TYPES
    building = final.with_name(f"types.{os.getpid()}.tmp")
    shutil.rmtree(building, ignore_errors=True)
    try:
        for package in COPIED:
            source = node_modules / package
            if source.is_dir():
                shutil.copytree(source, building / package, ignore=shutil.ignore_patterns("node_modules"))
        for name, data in generated.items():
            (building / name).parent.mkdir(parents=True, exist_ok=True)
            (building / name).write_bytes(data)
        (building / "version.json").write_bytes((json.dumps(wanted, indent=2) + "\n").encode("utf-8"))
        old = final.with_name(f"types.{os.getpid()}.old")
        if final.exists():
            os.replace(final, old)
        os.replace(building, final)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    atomic_write(root / CHECK_TSCONFIG_PATH, CHECK_TSCONFIG.encode("utf-8"))


def prepare_types(
    root: Path,
    home: Path,
    *,
    offline: bool,
    who: str = "pix3 check",
    install: Installer | None = None,
    log: Callable[[str], object] = sys.stderr.write,
) -> str | None:
    """Make ``.pix3/types/`` and ``.pix3/tsconfig.check.json`` current; a note when they were written.

    Raises ``TypesUnavailable`` when three's types are neither cached nor installable.
    """
    wanted = manifest()
    if is_current(root, wanted):
        return None
    three = resolve_three_types(home, offline=offline, who=who, install=install, log=log)
    _write(root, three.node_modules, _generated(), wanted)
    return (
        f"Wrote the @pix3/runtime {CLI_VERSION} types (generated from the scene model) and @types/three "
        f"{three.version} to .pix3/types/ (and {CHECK_TSCONFIG_PATH})."
    )
