"""Which tsconfig a check uses, and the shipped script types (spec/tools.md §1.4).

A project with its own root ``tsconfig.json`` is checked with it, against its own
``node_modules``. Otherwise ``.pix3/tsconfig.check.json`` points at the declarations pix3net
ships, copied to ``.pix3/types/`` and rewritten when they come from another build.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from pix3tools.core import CLI_VERSION, atomic_write

EXTENDS_LINE = '{ "extends": "./.pix3/tsconfig.check.json" }'
SHIPPED_TYPES = Path(__file__).with_name("data") / "types"
THREE_TYPES_VERSION = "0.0.0-pix3net"
_BUILT_AT = "2026-11-30T00:00:00.000Z"  # when these declarations were written (they are static data)

CHECK_TSCONFIG = """// Written by @pix3/cli (pix3 kit / pix3 check); replaced when the CLI version changes.
// Type-checks the project's scripts against the @pix3/runtime declarations in ./types/.
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
      "three/*": ["./types/@types/three/*"]
    }
  },
  "include": ["../scripts/**/*.ts", "../src/scripts/**/*.ts"]
}
"""


@dataclass(frozen=True)
class Layout:
    mode: str  # "project" | "pix3-types"
    tsconfig: str  # project-relative
    skipped: str | None = None
    dependencies_missing: bool = False
    runtime_missing: bool = False
    note: str | None = None


def source_stamp() -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in SHIPPED_TYPES.rglob("*") if p.is_file()):
        digest.update(path.relative_to(SHIPPED_TYPES).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def manifest() -> dict[str, object]:
    return {
        "format": 1,
        "cliVersion": CLI_VERSION,
        "runtimeVersion": CLI_VERSION,
        "threeTypesVersion": THREE_TYPES_VERSION,
        "sourceStamp": source_stamp(),
        "builtAt": _BUILT_AT,
    }


def has_own_tsconfig(root: Path) -> bool:
    path = root / "tsconfig.json"
    if not path.exists():
        return False
    try:
        return path.read_text(encoding="utf-8").strip() != EXTENDS_LINE
    except (OSError, UnicodeDecodeError):
        return True


def installed_version(root: Path, package: str) -> str | None:
    """The first ``node_modules/<package>/package.json`` walking up: its string version, else None."""
    for folder in (root, *root.parents):
        path = folder / "node_modules" / package / "package.json"
        if path.exists():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            version = data.get("version") if isinstance(data, dict) else None
            return version if isinstance(version, str) else None
    return None


def _types_current(root: Path, wanted: dict[str, object]) -> bool:
    try:
        have = json.loads((root / ".pix3" / "types" / "version.json").read_text(encoding="utf-8"))
        config = (root / ".pix3" / "tsconfig.check.json").read_text(encoding="utf-8")
    except (OSError, ValueError):
        return False
    return (
        isinstance(have, dict)
        and have.get("cliVersion") == wanted["cliVersion"]
        and have.get("sourceStamp") == wanted["sourceStamp"]
        and config == CHECK_TSCONFIG
    )


def prepare(root: Path) -> Layout:
    if has_own_tsconfig(root):
        if not any((folder / "node_modules").is_dir() for folder in (root, *root.parents)):
            return Layout("project", "tsconfig.json", skipped="dependencies not installed (run npm install)",
                          dependencies_missing=True)  # fmt: skip
        return Layout("project", "tsconfig.json", runtime_missing=installed_version(root, "@pix3/runtime") is None)
    wanted = manifest()
    note = None
    if not _types_current(root, wanted):
        types = root / ".pix3" / "types"
        shutil.rmtree(types, ignore_errors=True)
        shutil.copytree(SHIPPED_TYPES, types)
        atomic_write(types / "version.json", (json.dumps(wanted, indent=2) + "\n").encode())
        atomic_write(root / ".pix3" / "tsconfig.check.json", CHECK_TSCONFIG.encode())
        note = (
            f"Wrote the @pix3/runtime {wanted['runtimeVersion']} types to .pix3/types/ (and .pix3/tsconfig.check.json)."
        )
    return Layout("pix3-types", ".pix3/tsconfig.check.json", note=note)
