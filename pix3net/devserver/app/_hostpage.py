"""The editor page: ours (docs/devserver.md, "The editor page"), or the version-gate page."""

from __future__ import annotations

import html
import re

from pix3net.devserver.page import page_folder
from pix3net.wire.hostrule import EDITOR_NAME, GAME_NAME, split_host

_RELEASE = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


def version_gate(runtime: str | None, editor_core: str | None) -> str | None:
    """The refusal message when the installed editor cannot open the project's runtime, else None."""
    if editor_core is None:
        return None
    if runtime is None:
        return "The project has no @pix3/runtime installed. Run: npm i @pix3/runtime"
    if runtime == editor_core:
        return None
    a, b = _RELEASE.match(runtime), _RELEASE.match(editor_core)
    if a and b and a.group(1, 2) == b.group(1, 2):
        return None
    return (
        f"This editor (@pix3/editor-core {editor_core}) needs @pix3/runtime {editor_core}; "
        f"the project has {runtime}. Run: npm i @pix3/runtime@{editor_core}"
    )


def gate_page(message: str) -> bytes:
    text = html.escape(message)
    return (
        '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Pix3 — version mismatch</title></head>\n'
        f"<body>\n<h1>Pix3 cannot open this project yet</h1>\n<p>{text}</p>\n<p>Then restart the dev server.</p>\n</body>\n</html>\n"
    ).encode()


# The page's modules, fetched in parallel from the start (main.js imports them all).
PAGE_MODULES = (
    "main.js",
    "bridge.js",
    "tools.js",
    "paramschema.js",
    "errorspanel.js",
    "tabsocket.js",
    "play.js",
    "judge.js",
    "predicates.js",
    "gamerun.js",
    "scenetool.js",
    "scene2d.js",
    "sceneview.js",
    "workbench.js",
    "ui.js",
    "webmcp.js",
)


def host_page(project_name: str, *, editor_css: bool = False) -> bytes:
    """Our editor page: the HTML with its styles inline; the modules come from `/__pix3/page/`."""
    template = (page_folder() / "index.html").read_text(encoding="utf-8")
    if editor_css:
        template = template.replace("</head>", '<link rel="stylesheet" href="/__pix3/editor.css">\n</head>', 1)
    preloads = "\n".join(f'<link rel="modulepreload" href="/__pix3/page/{name}">' for name in PAGE_MODULES)
    page = template.replace("<!--PIX3_PRELOADS-->", preloads, 1)
    return page.replace("<!--PIX3_PROJECT-->", html.escape(project_name), 1).encode()


# The game's frame (docs/game-page.md, section 4): a document of ours served under the game's name
# that holds the game page and its probe (gameframe.js). Only the editor page may frame it.
GAME_FRAME_PAGE = (
    b'<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Pix3 game</title>\n'
    b"<style>html,body{margin:0;height:100%;overflow:hidden;background:#101215}"
    b"iframe{display:block;border:0;width:100%;height:100%}</style>\n"
    b'<script type="module" src="/__pix3/page/gameframe.js"></script>\n</head>\n<body></body>\n</html>\n'
)


def game_frame_headers(host: str | None) -> dict[str, str]:
    """The game frame's answer headers for a request naming ``host``: framed only by the editor
    page, which is served under `localhost` when the frame is under the game's name `127.0.0.1`
    (or, under a public name, under the same name). Under any other name only 'self'."""
    ancestors = "'self'"
    parts = split_host(host) if host else None
    if parts is not None and parts[0] == GAME_NAME:
        ancestors += f" http://{EDITOR_NAME}" + (f":{parts[1]}" if parts[1] is not None else "")
    return {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-store",
        "Content-Security-Policy": f"frame-ancestors {ancestors}",
    }
