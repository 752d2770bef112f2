"""`pix3 sfx`: an offline jsfxr-style synth (docs/sfx.md).

``render(params, noise_seed)`` gives float32 samples at 44.1 kHz; ``encode_wav`` the 16-bit
PCM file; ``pick_preset`` / ``apply_modifiers`` / ``vary`` turn a description and a seed into
parameters. Same preset, text and seed → the same bytes.
"""

import os

# Before numpy loads: the synth is elementwise and never calls BLAS, yet OpenBLAS starts a thread
# per core when it is loaded — 35 ms of CPU on a 2-core machine, a quarter of `pix3 sfx`'s whole
# run (docs/sfx.md, Performance). A user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from pix3tools.sfx._params import PARAM_KEYS, PRESETS, Params, apply_modifiers, pick_preset, vary
from pix3tools.sfx._synth import SAMPLE_RATE, render
from pix3tools.sfx._wav import encode_wav

__all__ = [
    "PARAM_KEYS",
    "PRESETS",
    "SAMPLE_RATE",
    "Params",
    "apply_modifiers",
    "encode_wav",
    "pick_preset",
    "render",
    "vary",
]
