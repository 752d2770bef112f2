"""The renderer: mono float32 samples at 44.1 kHz (docs/sfx.md, "Rendering").

Everything that does not carry state from one sample to the next is computed with numpy in the
reference's exact floating-point order (element-wise +, −, ×, ÷ round exactly like JavaScript's; the
phase is a sequential ``cumsum``). Only the low-pass and the DC blocker, whose state feeds the
next sample, run in a plain loop — about 5 ms for the longest preset.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from pix3tools.sfx._jsmath import js_round, mulberry32_block
from pix3tools.sfx._params import Params

SAMPLE_RATE = 44100
_FADE_SECONDS = 0.003  # a 3 ms fade-out so the last sample is 0 (no click)
_DC_POLE = 0.995
_NOISE_STEPS_PER_CYCLE = 16  # noise "frequency" is a sample-and-hold rate of freq × 16

_CLAMPS: dict[str, tuple[float, float]] = {
    "freq": (10, 20000),
    "freqEnd": (10, 20000),
    "attack": (0.0005, 5),
    "decay": (0, 5),
    "sustain": (0, 5),
    "release": (0.002, 5),
    "sustainLevel": (0, 1),
    "duty": (0.05, 0.95),
    "volume": (0, 1),
    "lowpassQ": (0.5, 8),
}

Samples = npt.NDArray[np.float32]


def _clamped(params: Params) -> Params:
    changes: dict[str, Any] = {}
    for name, (low, high) in _CLAMPS.items():
        value = float(getattr(params, name))
        changes[name] = low if not math.isfinite(value) else min(high, max(low, value))
    return dataclasses.replace(params, **changes)


def _envelope(p: Params, t: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    env = np.zeros_like(t)
    in_attack = t < p.attack
    env[in_attack] = t[in_attack] / p.attack
    d = t - p.attack
    in_decay = ~in_attack & (d < p.decay)
    env[in_decay] = 1 - (1 - p.sustainLevel) * (d[in_decay] / p.decay)
    d = d - p.decay
    in_sustain = ~in_attack & ~in_decay & (d < p.sustain)
    env[in_sustain] = p.sustainLevel
    d = d - p.sustain
    in_release = ~in_attack & ~in_decay & ~in_sustain & (d < p.release)
    q = 1 - d[in_release] / p.release
    env[in_release] = p.sustainLevel * (q * q)  # x*x: CPython's x**2 differs from JavaScript's in the last bit
    return env


def _oscillator(p: Params, phase: npt.NDArray[np.float64], noise_seed: int) -> npt.NDArray[np.float64]:
    if p.wave == "noise":
        steps = np.floor(phase * _NOISE_STEPS_PER_CYCLE)
        previous = np.concatenate(([0.0], steps[:-1]))
        draw_index = np.cumsum(steps != previous)
        draws = mulberry32_block(noise_seed, int(draw_index[-1]) + 1)
        out: npt.NDArray[np.float64] = draws[draw_index] * 2 - 1
        return out
    cycle = np.fmod(phase, 1.0)
    if p.wave == "square":
        return np.where(cycle < p.duty, 1.0, -1.0)
    if p.wave == "saw":
        return 2 * cycle - 1
    if p.wave == "sine":
        return np.sin(2 * math.pi * phase)
    if p.wave == "triangle":
        return 1 - 4 * np.abs(cycle - 0.5)
    raise ValueError(f"unknown wave {p.wave!r}")


def _lowpass_coefficients(p: Params) -> tuple[float, float, float, float, float] | None:
    if not 0 < p.lowpassHz < SAMPLE_RATE / 2:
        return None
    w0 = 2 * math.pi * p.lowpassHz / SAMPLE_RATE
    alpha = math.sin(w0) / (2 * p.lowpassQ)
    a0 = 1 + alpha
    cos_w0 = math.cos(w0)
    b0 = (1 - cos_w0) / 2 / a0
    return b0, (1 - cos_w0) / a0, b0, (-2 * cos_w0) / a0, (1 - alpha) / a0


def _filter_and_dc(samples: list[float], coefficients: tuple[float, float, float, float, float] | None) -> list[float]:
    out = [0.0] * len(samples)
    dc_in = dc_out = 0.0
    if coefficients is None:
        for i, x in enumerate(samples):
            dc_out = (x - dc_in) + _DC_POLE * dc_out
            dc_in = x
            out[i] = dc_out
        return out
    b0, b1, b2, a1, a2 = coefficients
    x1 = x2 = y1 = y2 = 0.0
    for i, x in enumerate(samples):
        y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1, y2, y1 = x1, x, y1, y
        dc_out = (y - dc_in) + _DC_POLE * dc_out
        dc_in = y
        out[i] = dc_out
    return out


def render(params: Params, noise_seed: int = 1) -> Samples:
    """Render one voice; ``noise_seed`` seeds the noise PRNG (1 without ``--seed``)."""
    p = _clamped(params)
    duration = p.attack + p.decay + p.sustain + p.release
    length = max(1, js_round(duration * SAMPLE_RATE))
    slide_len = p.slide if p.slide > 0 else duration
    ratio = p.freqEnd / p.freq
    t = np.arange(length, dtype=np.float64) / SAMPLE_RATE
    f = p.freq * np.power(ratio, np.minimum(1.0, t / slide_len))
    if p.arpAt > 0:
        f = np.where(t >= p.arpAt, f * p.arpMul, f)
    if p.vibratoDepth > 0:
        f = f * (1 + p.vibratoDepth * np.sin(2 * math.pi * p.vibratoHz * t))
    phase = np.cumsum(f / SAMPLE_RATE)  # sequential, like `phase += f / rate` before sampling
    voiced = _oscillator(p, phase, noise_seed) * _envelope(p, t)
    out = np.array(_filter_and_dc(voiced.tolist(), _lowpass_coefficients(p)), dtype=np.float32)
    fade = min(length, js_round(_FADE_SECONDS * SAMPLE_RATE))
    k = np.arange(fade, dtype=np.float64)
    tail = slice(length - fade, length)
    out[tail] = ((out[tail][::-1].astype(np.float64) * k) / fade).astype(np.float32)[::-1]
    peak = float(np.max(np.abs(out)))
    if peak > 0:
        out = (out.astype(np.float64) * (p.volume / peak)).astype(np.float32)
    return out
