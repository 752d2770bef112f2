"""`pix3 smoke`'s arguments (docs/smoke.md, "Arguments"). Pure: argv in, :class:`SmokeArgs` or a
:class:`UsageError` out."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pix3tools._js import to_number

__all__ = ["DEFAULT_FRAMES", "DEFAULT_TIMEOUT_S", "SmokeArgs", "UsageError", "check_args", "parse_args", "positive"]

DEFAULT_FRAMES = 120  # 2 s at 60 frames a second
DEFAULT_TIMEOUT_S = 20.0  # per scene


class UsageError(ValueError):
    pass


@dataclass(frozen=True)
class SmokeArgs:
    scene: str | None = None
    changed: bool = False
    all: bool = False
    frames: int = DEFAULT_FRAMES
    timeout: float = DEFAULT_TIMEOUT_S
    json: bool = False
    no_sync: bool = False
    project: str | None = None
    help: bool = False


def positive(name: str, text: str) -> float:
    """``Number(text)``, finite and above 0, else ``<name> needs a positive number``."""
    value = to_number(text)
    if not math.isfinite(value) or value <= 0:
        raise UsageError(f"{name} needs a positive number")
    return value


def check_args(args: SmokeArgs) -> None:
    """The rules between arguments, once each one parsed."""
    if args.changed and args.all:
        raise UsageError("--changed and --all exclude each other")
    if args.scene is not None and (args.changed or args.all):
        flag = "--changed" if args.changed else "--all"
        raise UsageError(f"{flag} picks the scenes; drop {args.scene} or the flag")


def parse_args(argv: list[str]) -> SmokeArgs:
    flags = {"--json": "json", "--no-sync": "no_sync", "--changed": "changed", "--all": "all"}
    values: dict[str, object] = {}
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if token in ("--help", "-h"):
            values["help"] = True
            continue
        if token in flags:
            values[flags[token]] = True
            continue
        name, eq, inline = token.partition("=")
        if name in ("--frames", "--timeout", "--project"):
            value: str | None = inline if eq else (argv[i] if i < len(argv) else None)
            if not eq:
                i += 1
            if value is None or value.startswith("--"):
                raise UsageError(f"{name} needs a value")
            if name == "--project":
                values["project"] = value
            elif name == "--frames":
                values["frames"] = math.floor(positive(name, value))
            else:
                values["timeout"] = positive(name, value)
            continue
        if token.startswith("-"):
            raise UsageError(f"unknown argument {token}")
        if "scene" in values:
            raise UsageError(f"one scene at a time (got {values['scene']} and {token})")
        values["scene"] = token
    args = SmokeArgs(**values)  # type: ignore[arg-type]
    check_args(args)
    return args
