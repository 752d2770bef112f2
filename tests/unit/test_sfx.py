"""The synth, pure (docs/sfx.md): PRNG vectors, text → preset, modifiers, variation, golden numbers."""

from __future__ import annotations

import dataclasses
import hashlib
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pix3tools.sfx import PRESETS, SAMPLE_RATE, apply_modifiers, encode_wav, pick_preset, render, vary
from pix3tools.sfx._jsmath import Mulberry32, js_round, mulberry32_block, to_fixed_number
from pix3tools.sfx._wav import to_int16
from pix3tools.sfx.command import js_number


@pytest.mark.parametrize(
    ("seed", "draws"),
    [
        (1, [0.6270739405881613, 0.002735721180215478, 0.5274470399599522]),
        (0, [0.26642920868471265]),
        (42, [0.6011037519201636, 0.44829055899754167, 0.8524657934904099]),
    ],
)
def test_mulberry32_vectors(seed: int, draws: list[float]) -> None:
    rand = Mulberry32(seed)
    assert [rand() for _ in draws] == draws
    assert mulberry32_block(seed, len(draws)).tolist() == draws


@given(st.integers(0, 2**32 - 1), st.integers(1, 64))
def test_block_prng_equals_sequential(seed: int, count: int) -> None:
    rand = Mulberry32(seed)
    assert mulberry32_block(seed, count).tolist() == [rand() for _ in range(count)]


def test_js_round_and_to_fixed() -> None:
    assert [js_round(x) for x in (0.5, 1.5, 2.5, -0.5, -1.5, 2.4999)] == [1, 2, 3, 0, -1, 2]
    assert to_fixed_number(4 / 3, 4) == 1.3333
    assert to_fixed_number(0.03125, 4) == 0.0313  # an exact tie goes to the larger value
    assert to_fixed_number(-0.03125, 4) == -0.0313


# (samples, bytes, durationMs, KiB shown) — docs/sfx.md, "Reference numbers"
GOLDEN = {
    "coin": (13318, 26680, 302, "26.1"),
    "jump": (8908, 17860, 202, "17.4"),
    "hit": (6659, 13362, 151, "13.0"),
    "explosion": (34045, 68134, 772, "66.5"),
    "powerup": (20066, 40176, 455, "39.2"),
    "click": (1080, 2204, 24, "2.2"),
}


@pytest.mark.parametrize("name", list(GOLDEN))
def test_preset_golden_numbers_and_shape(name: str) -> None:
    params = PRESETS[name]
    samples = render(params)
    data = encode_wav(samples)
    count, size, duration_ms, _ = GOLDEN[name]
    assert len(samples) == count
    assert len(data) == size
    assert js_round(len(samples) / SAMPLE_RATE * 1000) == duration_ms
    duration = params.attack + params.decay + params.sustain + params.release
    assert count == js_round(duration * SAMPLE_RATE)
    assert 0.020 < duration < 1.5
    assert np.all(np.isfinite(samples))
    assert round(float(np.max(np.abs(samples))), 5) == round(params.volume, 5)
    assert abs(float(samples[-1])) < 1e-6
    assert math.sqrt(float(np.mean(samples.astype(np.float64) ** 2))) > 0.05


@pytest.mark.parametrize(
    ("name", "sha256"),
    [
        ("coin", "047307a01bb2c3fb18c6915cd65816f57e84444feef29dc8b2d6607211c1b91f"),
        ("click", "c6496169d3c9fab5988d9fd7c75c9c73780a6954be7d7db9c2895fe990366579"),
        ("explosion", "56fcb8f02decc005b4d2072405a6634018e0a00e0dbcc171b739731c9394e302"),
    ],
)
def test_wav_bytes_match_the_independent_port(name: str, sha256: str) -> None:
    assert hashlib.sha256(encode_wav(render(PRESETS[name]))).hexdigest() == sha256


def test_first_coin_samples() -> None:
    assert to_int16(render(PRESETS["coin"]))[:8].tolist() == [0, 246, 490, 733, 975, 1215, 1455, 1693]


def test_int16_conversion() -> None:
    assert to_int16(np.array([0, 1, -1, 0.5, 2, -3], dtype=np.float32)).tolist() == [
        0,
        32767,
        -32768,
        16384,
        32767,
        -32768,
    ]


def test_wav_header() -> None:
    data = encode_wav(np.zeros(3, dtype=np.float32))
    assert data[:4] == b"RIFF" and data[8:16] == b"WAVEfmt "
    assert int.from_bytes(data[4:8], "little") == 36 + 6
    assert int.from_bytes(data[24:28], "little") == 44100
    assert int.from_bytes(data[28:32], "little") == 88200
    assert data[36:40] == b"data" and int.from_bytes(data[40:44], "little") == 6
    assert len(data) == 44 + 6


def test_seeded_variation_numbers() -> None:
    coin = vary(PRESETS["coin"], 7)
    got = {
        k: to_fixed_number(getattr(coin, k), 4)
        for k in ("freq", "freqEnd", "arpAt", "duty", "decay", "sustain", "release")
    }
    assert got == {
        "freq": 1130.9817, "freqEnd": 1165.2284, "arpAt": 0.0654, "duty": 0.4066,
        "decay": 0.0187, "sustain": 0.0934, "release": 0.1681,
    }  # fmt: skip
    samples = render(coin, noise_seed=7)
    assert (len(samples), len(encode_wav(samples))) == (12440, 24924)
    assert js_round(len(samples) / SAMPLE_RATE * 1000) == 282
    explosion = vary(PRESETS["explosion"], 3)
    assert len(render(explosion, noise_seed=3)) == 27343
    assert to_fixed_number(explosion.lowpassHz, 4) == 1070.7847
    powerup = vary(PRESETS["powerup"], 42)
    assert [to_fixed_number(getattr(powerup, k), 4) for k in ("vibratoDepth", "vibratoHz", "lowpassHz")] == [
        0.0449, 16.6072, 6169.3563,
    ]  # fmt: skip


def test_same_seed_same_bytes_other_seed_differs() -> None:
    seven = encode_wav(render(vary(PRESETS["coin"], 7), noise_seed=7))
    assert seven == encode_wav(render(vary(PRESETS["coin"], 7), noise_seed=7))
    assert seven != encode_wav(render(vary(PRESETS["coin"], 8), noise_seed=8))


def test_attack_is_not_time_scaled_and_lowpass_only_drawn_when_on() -> None:
    coin = vary(PRESETS["coin"], 5)
    assert coin.attack == PRESETS["coin"].attack
    assert coin.lowpassHz == 0
    assert vary(PRESETS["coin"], 5).duty == vary(dataclasses.replace(PRESETS["coin"], lowpassHz=1000), 5).duty


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("coin", ("coin", True)),
        ("  EXPLOSION ", ("explosion", True)),
        ("big explosion", ("explosion", False)),
        ("coin pickup", ("coin", False)),
        ("button click", ("click", False)),
        ("pick up the gem", ("coin", False)),
        ("the bomb explodes after a jump", ("explosion", False)),  # earliest position wins
        ("explodes", ("explosion", False)),  # "explod" (≥5 letters) matches as a prefix
        ("hits", None),  # "hit" is shorter than 5: no prefix match
        ("level up!", ("powerup", False)),
        ("power-up", ("powerup", False)),
        ("ui", ("click", False)),
        ("quiet kaboom", ("explosion", False)),
        ("a cat", None),
        ("jump or coin", ("jump", False)),
    ],
)
def test_text_to_preset(text: str, expected: tuple[str, bool] | None) -> None:
    assert pick_preset(text) == expected


def test_modifiers() -> None:
    params, applied = apply_modifiers(PRESETS["coin"], "short high coin pickup")
    assert applied == ["high", "short"]
    assert params.freq == 988 * 1.4 and params.freqEnd == 988 * 1.4
    assert params.release == 0.18 * 0.65 and params.attack == PRESETS["coin"].attack
    _, applied = apply_modifiers(PRESETS["coin"], "huge low tiny slow quick soft quiet coin")
    assert applied == ["tiny", "low", "quick", "slow", "soft"]
    assert apply_modifiers(PRESETS["coin"], "coin")[1] == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("7", 7.0),
        (" 7 ", 7.0),
        ("", 0.0),
        ("0x10", 16.0),
        ("1e3", 1000.0),
        ("7.0", 7.0),
        ("7.5", 7.5),
        ("abc", None),
        ("0xzz", None),
    ],
)
def test_js_number(text: str, value: float | None) -> None:
    assert js_number(text) == value


def test_clamps_keep_nonsense_finite() -> None:
    wild = dataclasses.replace(PRESETS["jump"], freq=float("nan"), release=0, duty=5, lowpassQ=100)
    samples = render(wild)
    assert np.all(np.isfinite(samples)) and len(samples) > 0
