"""16-bit mono PCM WAV with the classic 44-byte header (docs/sfx.md, "The WAV file")."""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt

from pix3tools.sfx._synth import SAMPLE_RATE


def to_int16(samples: npt.NDArray[np.float32]) -> npt.NDArray[np.int16]:
    """Clamp, scale asymmetrically (−32768…32767) and round halves up like ``Math.round``."""
    s = np.clip(samples.astype(np.float64), -1.0, 1.0)
    v = np.where(s < 0, s * 32768, s * 32767)
    floor = np.floor(v)
    rounded = floor + ((v - floor) >= 0.5)
    return rounded.astype(np.int16)


def encode_wav(samples: npt.NDArray[np.float32]) -> bytes:
    data = to_int16(samples).astype("<i2").tobytes()
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + len(data),
        b"WAVE",
        b"fmt ",
        16,
        1,
        1,
        SAMPLE_RATE,
        SAMPLE_RATE * 2,
        2,
        16,
        b"data",
        len(data),
    )
    return header + data
