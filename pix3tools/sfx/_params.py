"""Parameters, presets, text → preset, modifiers and the seeded variation.

See docs/sfx.md: "Text → preset", "Modifiers", "Parameters and presets", "Seeded variation"."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from pix3tools.sfx._jsmath import Mulberry32

WAVES = ("square", "saw", "sine", "triangle", "noise")


@dataclass(frozen=True)
class Params:
    """One voice. Field order is the JSON ``params`` order."""

    wave: str = "square"
    freq: float = 440
    freqEnd: float = 440  # field names are the JSON keys
    slide: float = 0
    arpAt: float = 0
    arpMul: float = 1
    vibratoDepth: float = 0
    vibratoHz: float = 0
    duty: float = 0.5
    attack: float = 0.002
    decay: float = 0.05
    sustainLevel: float = 0.6
    sustain: float = 0.05
    release: float = 0.1
    lowpassHz: float = 0
    lowpassQ: float = 0.707
    volume: float = 0.8


PARAM_KEYS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Params))

_BASE = Params()
# The presets as tuned; fixed order (it breaks ties in text matching).
PRESETS: dict[str, Params] = {
    "coin": dataclasses.replace(
        _BASE,
        freq=988,
        freqEnd=988,
        arpAt=0.07,
        arpMul=4 / 3,
        decay=0.02,
        sustainLevel=0.7,
        sustain=0.1,
        release=0.18,
        volume=0.7,
    ),
    "jump": dataclasses.replace(
        _BASE, freq=260, freqEnd=720, slide=0.16, duty=0.35, decay=0.04, sustain=0.06, lowpassHz=5000, volume=0.7
    ),
    "hit": dataclasses.replace(
        _BASE,
        wave="noise",
        freq=1400,
        freqEnd=180,
        slide=0.12,
        attack=0.001,
        decay=0.05,
        sustainLevel=0.3,
        sustain=0.02,
        release=0.08,
        lowpassHz=3200,
        lowpassQ=1.2,
        volume=0.85,
    ),
    "explosion": dataclasses.replace(
        _BASE,
        wave="noise",
        freq=520,
        freqEnd=40,
        slide=0.7,
        decay=0.12,
        sustainLevel=0.55,
        sustain=0.15,
        release=0.5,
        lowpassHz=1400,
        lowpassQ=1,
        volume=0.9,
    ),
    "powerup": dataclasses.replace(
        _BASE,
        wave="saw",
        freq=330,
        freqEnd=1320,
        slide=0.38,
        vibratoDepth=0.04,
        vibratoHz=14,
        attack=0.005,
        decay=0.05,
        sustainLevel=0.7,
        sustain=0.25,
        release=0.15,
        lowpassHz=6000,
        volume=0.65,
    ),
    "click": dataclasses.replace(
        _BASE,
        freq=1800,
        freqEnd=1200,
        slide=0.02,
        duty=0.25,
        attack=0.0005,
        decay=0.012,
        sustainLevel=0,
        sustain=0,
        release=0.012,
        lowpassHz=8000,
        volume=0.6,
    ),
}

_KEYWORDS: dict[str, tuple[str, ...]] = {
    "coin": ("coin", "pickup", "pick up", "collect", "gem", "ding", "bling", "money", "score", "reward"),
    "jump": ("jump", "hop", "leap", "spring", "bounce", "boing"),
    "hit": ("hit", "hurt", "damage", "punch", "impact", "thud", "smack", "crash", "kick", "slap"),
    "explosion": ("explosion", "explode", "boom", "blast", "bomb", "kaboom", "explod", "detonat"),
    "powerup": ("powerup", "power-up", "power up", "level up", "upgrade", "bonus", "charge", "magic"),
    "click": ("click", "tap", "button", "ui", "menu", "select", "tick", "toggle", "blip"),
}

# (words, fields scaled, factor), applied in this order; the first listed word present wins.
_TIME_FIELDS = ("slide", "arpAt", "decay", "sustain", "release")  # attack is not scaled
_MODIFIERS: tuple[tuple[tuple[str, ...], tuple[str, ...], float], ...] = (
    (("high", "bright", "tiny", "small", "light"), ("freq", "freqEnd"), 1.4),
    (("low", "deep", "big", "heavy", "huge"), ("freq", "freqEnd"), 0.7),
    (("short", "quick", "snappy", "fast"), _TIME_FIELDS, 0.65),
    (("long", "slow"), _TIME_FIELDS, 1.6),
    (("soft", "quiet"), ("volume",), 0.6),
)
_PREFIX_MIN = 5  # keyword words this long also match as a token prefix ("explod" → "explodes")


def tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[^a-z-]+", text.lower()) if t]


def _match_at(keyword: str, words: list[str]) -> int | None:
    parts = keyword.split(" ")
    for i in range(len(words) - len(parts) + 1):
        if all(
            words[i + k] == part or (len(part) >= _PREFIX_MIN and words[i + k].startswith(part))
            for k, part in enumerate(parts)
        ):
            return i
    return None


def pick_preset(text: str) -> tuple[str, bool] | None:
    """The preset a text names and whether it named it exactly (exact names take no modifiers)."""
    exact = text.strip().lower()
    if exact in PRESETS:
        return exact, True
    words = tokens(text)
    best: tuple[int, str] | None = None
    for name in PRESETS:
        for keyword in (name, *_KEYWORDS[name]):
            at = _match_at(keyword, words)
            if at is not None and (best is None or at < best[0]):
                best = (at, name)
    return (best[1], False) if best else None


def apply_modifiers(params: Params, text: str) -> tuple[Params, list[str]]:
    present = set(tokens(text))
    applied: list[str] = []
    for words, fields, factor in _MODIFIERS:
        word = next((w for w in words if w in present), None)
        if word is None:
            continue
        applied.append(word)
        params = dataclasses.replace(params, **{f: getattr(params, f) * factor for f in fields})
    return params, applied


def vary(params: Params, seed: int) -> Params:
    """The seeded variation: draws in a fixed order from mulberry32(seed ^ 0x9E3779B9)."""
    rand = Mulberry32((seed ^ 0x9E3779B9) & 0xFFFFFFFF)

    def jitter(amount: float) -> float:
        return 1 + (rand() * 2 - 1) * amount

    pitch = jitter(0.15)
    time = jitter(0.2)
    j_end, j_duty, j_vib_depth, j_vib_hz = jitter(0.08), jitter(0.25), jitter(0.3), jitter(0.2)
    lowpass = params.lowpassHz * jitter(0.25) if params.lowpassHz > 0 else params.lowpassHz
    return dataclasses.replace(
        params,
        freq=params.freq * pitch,
        freqEnd=(params.freqEnd * pitch) * j_end,
        slide=params.slide * time,
        arpAt=params.arpAt * time,
        decay=params.decay * time,
        sustain=params.sustain * time,
        release=params.release * time,
        duty=min(0.9, max(0.1, params.duty * j_duty)),
        vibratoDepth=params.vibratoDepth * j_vib_depth,
        vibratoHz=params.vibratoHz * j_vib_hz,
        lowpassHz=lowpass,
    )
