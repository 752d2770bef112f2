"""The editor page: our editor host page, or the version-gate page (spec/devserver.md §3.6)."""

from __future__ import annotations

import html
import re
from importlib import resources

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


def host_page(project_name: str, *, editor_css: bool = False) -> bytes:
    """Our editor host page with its script inline (one request, nothing for Vite to touch)."""
    folder = resources.files("pix3net.devserver") / "static"
    template = (folder / "index.html").read_text(encoding="utf-8")
    script = (folder / "host.js").read_text(encoding="utf-8")
    if editor_css:
        template = template.replace("</head>", '<link rel="stylesheet" href="/__pix3/editor.css">\n</head>', 1)
    page = template.replace("<!--PIX3_PROJECT-->", html.escape(project_name), 1)
    return page.replace("/*PIX3_HOST_SCRIPT*/", script.replace("</script", "<\\/script"), 1).encode()
