"""The dev server's one table of media types by file extension (docs/devserver.md, "Media types").

Both the file API (``GET /__pix3/api/file``) and the project folder served as plain files (no
Vite) answer with these types. The system's own table (Python's ``mimetypes``) is never asked: it
differs from machine to machine and says Qt Linguist or MPEG transport stream for ``.ts``.

Source that only a compiler can turn into JavaScript (TypeScript, JSX) is ``text/plain``: a
browser shows it, and refuses to run it as a module, which is the truth without Vite.
"""

from __future__ import annotations

__all__ = ["COMPILED_SOURCE", "CONTENT_TYPES", "OCTET_STREAM", "content_type"]

_TEXT = "; charset=utf-8"
OCTET_STREAM = "application/octet-stream"
# Extensions of script source a browser cannot run as it is: Vite compiles it.
COMPILED_SOURCE = frozenset({"ts", "tsx", "mts", "cts", "jsx"})

CONTENT_TYPES: dict[str, str] = {
    **dict.fromkeys(("pix3scene", "prefab", "pix3anim", "yaml", "yml"), "text/yaml" + _TEXT),
    **dict.fromkeys(("json", "map"), "application/json" + _TEXT),
    **dict.fromkeys((*sorted(COMPILED_SOURCE), "txt", "atlas"), "text/plain" + _TEXT),
    **dict.fromkeys(("js", "mjs", "cjs"), "text/javascript" + _TEXT),
    "md": "text/markdown" + _TEXT,
    "csv": "text/csv" + _TEXT,
    **dict.fromkeys(("html", "htm"), "text/html" + _TEXT),
    "css": "text/css" + _TEXT,
    "xml": "application/xml" + _TEXT,
    "svg": "image/svg+xml",
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "avif": "image/avif",
    "ico": "image/x-icon",
    "ktx2": "image/ktx2",
    "mp3": "audio/mpeg",
    "ogg": "audio/ogg",
    "oga": "audio/ogg",
    "wav": "audio/wav",
    "m4a": "audio/mp4",
    "aac": "audio/aac",
    "flac": "audio/flac",
    "mp4": "video/mp4",
    "webm": "video/webm",
    "mov": "video/quicktime",
    "glb": "model/gltf-binary",
    "gltf": "model/gltf+json",
    **{ext: f"font/{ext}" for ext in ("ttf", "otf", "woff", "woff2")},
    "wasm": "application/wasm",
}


def content_type(name: str) -> str:
    """The type of a file by the extension of its name (any case); ``application/octet-stream``
    for a name without one or an extension not in the table."""
    base = name.rsplit("/", 1)[-1]
    dot = base.rfind(".")
    if dot <= 0:
        return OCTET_STREAM
    return CONTENT_TYPES.get(base[dot + 1 :].lower(), OCTET_STREAM)
