"""`pix3 tree` arguments (spec/validate.md §4.1). Pure: argv in, options or an error out."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pix3tools._argv import option_value

__all__ = ["ArgError", "TreeArgs", "parse_args"]

_WHOLE = re.compile(r"^[0-9]+$")


class ArgError(ValueError):
    """A usage error; ``str()`` is the message printed before the usage."""


@dataclass(frozen=True)
class TreeArgs:
    scene: str | None = None
    depth: int | None = None
    types: tuple[str, ...] = ()
    props: bool = False
    json: bool = False
    project: str | None = None
    help: bool = False


def parse_args(argv: list[str]) -> TreeArgs:
    scene: str | None = None
    depth: int | None = None
    types: tuple[str, ...] = ()
    props = as_json = wants_help = False
    project: str | None = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        name = arg.partition("=")[0]
        if name in ("--depth", "--types", "--project"):
            value, i = option_value(argv, i)
            if value is None:
                raise ArgError(f"{name} needs a value")
            if name == "--depth":
                if not _WHOLE.match(value.strip()):
                    raise ArgError("--depth needs a whole number ≥ 0")
                depth = int(value)
            elif name == "--types":
                types = tuple(t.strip() for t in value.split(",") if t.strip())
            else:
                project = value
            continue
        i += 1
        if arg == "--json":
            as_json = True
        elif arg == "--props":
            props = True
        elif arg in ("--help", "-h"):
            wants_help = True
        elif arg.startswith("-") and arg != "-":
            raise ArgError(f"unknown argument {arg}")
        elif scene is not None:
            raise ArgError(f"one scene at a time (got {scene} and {arg})")
        else:
            scene = arg
    return TreeArgs(scene, depth, types, props, as_json, project, wants_help)
