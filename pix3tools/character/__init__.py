"""`pix3 character-compile`: a 2D variant × state flipbook character from PNG frames.

Public surface: ``load_spec(path) -> Spec`` (raises ``CharacterError``), ``compile_spec(spec) ->
Plan`` (the files to write, in order), ``scan_frames(paths)`` (numbered sequences), ``png_size``.
The command itself is ``pix3tools.character.command``.
"""

from pix3tools.character._compile import Plan, PlannedFile, clip_file_prefix, compile_spec, slugify
from pix3tools.character._png import png_size
from pix3tools.character._scan import scan_frames
from pix3tools.character._spec import CharacterError, Spec, load_spec

__all__ = [
    "CharacterError",
    "Plan",
    "PlannedFile",
    "Spec",
    "clip_file_prefix",
    "compile_spec",
    "load_spec",
    "png_size",
    "scan_frames",
    "slugify",
]
