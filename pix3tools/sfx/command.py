"""`pix3 sfx <preset|"text"> [--out <file.wav>] [--seed <n>] [--json]` (docs/sfx.md, "Output")."""

from __future__ import annotations

import errno
import json
import os
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TextIO

from pix3tools._js import plain_number
from pix3tools.core import atomic_write, find_project_root
from pix3tools.core.argv import Option, Syntax, UsageError
from pix3tools.core.runner import Call, run
from pix3tools.sfx import PARAM_KEYS, PRESETS, SAMPLE_RATE, apply_modifiers, encode_wav, pick_preset, render, vary
from pix3tools.sfx._jsmath import js_round, to_fixed_number

__all__ = ["SYNTAX", "js_number", "main"]

_NO_PRESET = (
    'names no preset. Use one of coin, jump, hit, explosion, powerup, click, or words like "coin pickup", '
    '"big explosion", "button click".'
)
_MAX_SEED = 4294967295


SYNTAX = Syntax(
    "sfx",
    flags=("--json",),
    options=(Option("--out", missing="--out needs a value."), Option("--seed", missing="--seed needs a value.")),
    words=None,
    unknown="unknown option {arg}.",
    dash_words=True,
    help="reached",
    usage_after_missing=False,
)


def js_number(text: str) -> float | None:
    """JavaScript ``Number(text)``: None for NaN. Covers what a seed can be spelled as."""
    s = text.strip()
    if s == "":
        return 0.0
    if re.fullmatch(r"[+-]?(Infinity)", s):
        return float(s.replace("Infinity", "inf"))
    for prefix, base in (("0x", 16), ("0o", 8), ("0b", 2)):
        if s[:2].lower() == prefix:
            try:
                return float(int(s[2:], base)) if re.fullmatch(r"[0-9a-fA-F]+", s[2:]) else None
            except ValueError:
                return None
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", s):
        return float(s)
    return None


def _number(x: float, digits: int) -> float | int:
    """``Number(x.toFixed(digits))`` as JSON would print it (integral values without ``.0``)."""
    return plain_number(to_fixed_number(x, digits))


def _posix_rel(target: Path, start: Path) -> str:
    return os.path.relpath(target, start).replace(os.sep, "/")


def main(argv: list[str], *, cwd: Path | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run(SYNTAX, argv, _sfx, cwd=cwd, out=out, err=err)


def _sfx(call: Call) -> int:
    text, out, seed_text = " ".join(call.args.words), call.args.text("--out"), call.args.text("--seed")
    if not text.strip():
        raise UsageError("say which sound.")
    seed: int | None = None
    if seed_text is not None:
        number = js_number(seed_text)
        if number is None or not number.is_integer() or not 0 <= number <= _MAX_SEED:
            raise UsageError(f'--seed takes a whole number 0..{_MAX_SEED}, not "{seed_text}".', usage=False)
        seed = int(number)
    picked = pick_preset(text)
    if picked is None:
        raise UsageError(f'"{text}" {_NO_PRESET}', usage=False)
    preset, exact = picked
    if out is not None and not out.lower().endswith(".wav"):
        raise UsageError(f'--out must end in .wav (the only format this writes), got "{out}".', usage=False)

    params, modifiers = (PRESETS[preset], []) if exact else apply_modifiers(PRESETS[preset], text)
    if seed is not None:
        params = vary(params, seed)
    samples = render(params, noise_seed=1 if seed is None else seed)
    data = encode_wav(samples)

    cwd = call.cwd
    target = (cwd / out).resolve() if out is not None else (find_project_root(cwd) or cwd) / "audio" / f"{preset}.wav"
    try:
        atomic_write(target, data)
    except OSError as exc:
        # mkdir through a file says EEXIST, opening through one ENOTDIR: name the real cause.
        why = "a folder on the way is a file" if exc.errno in (errno.EEXIST, errno.ENOTDIR) else exc.strerror or exc
        return call.fail(f"cannot write {_posix_rel(target, cwd)} ({why}); choose another --out.")

    root = find_project_root(target.parent)
    res = f"res://{_posix_rel(target, root)}" if root is not None else None
    path = _posix_rel(target, cwd)
    duration_ms = js_round(len(samples) / SAMPLE_RATE * 1000)
    if call.args.flag("--json"):
        report = {
            "path": path,
            "res": res,
            "durationMs": duration_ms,
            "preset": preset,
            "seed": seed,
            "modifiers": modifiers,
            "bytes": len(data),
            "peak": _number(float(abs(samples).max()), 3),
            "params": {k: (getattr(params, k) if k == "wave" else _number(getattr(params, k), 4)) for k in PARAM_KEYS},
        }
        call.out.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        return 0
    how = ", ".join(filter(None, [" ".join(modifiers), f"seed {seed}" if seed is not None else ""]))
    kib = Decimal(len(data) / 1024).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    line = f"wrote {path}  {preset}{f' ({how})' if how else ''}, {duration_ms} ms, {kib} KiB"
    call.out.write(line + (f"\n  use it as {res}" if res else "") + "\n")
    return 0
