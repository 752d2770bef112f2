"""The kit: our hand-written templates (``data/``) expanded with facts read from the code.

Template syntax, one directive per line (inline only ``{{version}}`` and ``{{gap-kinds}}``):

- ``{{if commands: a b}}`` … ``{{end}}`` keeps the lines when every named command is dispatched
  by this build (``pix3tools.core.commandtable.COMMANDS``); ``{{if facts: codes node-types}}`` when those
  facts are available (see ``_registries``). Blocks nest.
- ``{{generated: <name> [arg]}}`` is replaced by the lines :mod:`._generate` computes.

A kit only names commands, flags, tools and codes this build has: the drift test holds it to that.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pix3tools.core import CLI_VERSION
from pix3tools.core.commandtable import COMMANDS
from pix3tools.gap import KINDS
from pix3tools.kit._generate import fact_available, generate

DATA = Path(__file__).resolve().parent / "data"
SKILLS_PREFIX = ".claude/skills/"


class KitSourceError(RuntimeError):
    pass


@dataclass(frozen=True)
class Kit:
    version: str
    files: dict[str, bytes]

    def paths(self) -> list[str]:
        return sorted(self.files)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def project_path(source: str) -> str:
    """``skills/<name>/…`` lands at ``.claude/skills/<name>/…``; other files keep their path."""
    return SKILLS_PREFIX + source.removeprefix("skills/") if source.startswith("skills/") else source


def _condition_holds(condition: str, commands: set[str]) -> bool:
    kind, _, names = condition.partition(":")
    words = names.split()
    if kind.strip() == "commands":
        return all(word in commands for word in words)
    if kind.strip() == "facts":
        return all(fact_available(word) for word in words)
    raise KitSourceError(f"unknown condition {condition!r}")


def expand(template: str, *, source: str, version: str, commands: set[str]) -> str:
    out: list[str] = []
    keep_stack: list[bool] = []
    for number, line in enumerate(template.split("\n"), start=1):
        stripped = line.strip()
        if stripped.startswith("{{if ") and stripped.endswith("}}"):
            keep_stack.append(_condition_holds(stripped[5:-2], commands))
            continue
        if stripped == "{{end}}":
            if not keep_stack:
                raise KitSourceError(f"{source}:{number}: {{{{end}}}} without {{{{if}}}}")
            keep_stack.pop()
            continue
        if not all(keep_stack):
            continue
        if stripped.startswith("{{generated:") and stripped.endswith("}}"):
            name, *args = stripped[len("{{generated:") : -2].split()
            out.extend(generate(name, args, commands=commands))
            continue
        out.append(line.replace("{{version}}", version).replace("{{gap-kinds}}", "|".join(KINDS)))
    if keep_stack:
        raise KitSourceError(f"{source}: {{{{if}}}} without {{{{end}}}}")
    text = "\n".join(out)
    if "{{" in text:
        raise KitSourceError(f"{source}: unresolved directive near {text[text.index('{{') :][:40]!r}")
    return text


def load_kit(*, version: str = CLI_VERSION, commands: set[str] | None = None, data: Path = DATA) -> Kit:
    """Expand every template under ``data`` into the kit's files (project path → bytes)."""
    if commands is None:
        commands = set(COMMANDS)
    if not data.is_dir():
        raise KitSourceError(f"{data} is missing: this pix3net package was installed without its kit.")
    files: dict[str, bytes] = {}
    for path in sorted(p for p in data.rglob("*") if p.is_file()):
        source = path.relative_to(data).as_posix()
        text = expand(path.read_text(encoding="utf-8"), source=source, version=version, commands=commands)
        files[project_path(source)] = text.encode("utf-8")
    return Kit(version=version, files=files)
