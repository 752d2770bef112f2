"""The dev server's app: the Quart application behind the front door that answers `/__pix3/*`
(docs/devserver.md), the file API (`devserver.files`) aside.

Modules:

- `_routes`: the app itself (`create_app`, its `Context`): hello, handover, flush, sync, check,
  the editor socket, the page.
- `_guard`: what every `/__pix3` request must show (Host, peer, `X-Pix3`, Origin; under the game's
  name, no browser's request but the game's own), pure.
- `_tabs`: the editor tabs connected over `/__pix3/ws` (`Hub`, `Tab`, `Frame`).
- `_barrier`: flush and sync, the barriers across the tabs (`Barrier`).
- `_checks`: `POST /__pix3/api/check`'s options and run.
- `_pageroutes`: the editor page's own routes (scenes, outline, the page's modules).
- `_hostpage`: the host page and the version gate.
"""

from ._barrier import Barrier, parse_expect, parse_timeout
from ._guard import (
    FORBIDDEN_HOST,
    FORBIDDEN_ORIGIN,
    FORBIDDEN_REMOTE,
    MISSING_X_PIX3,
    PREFIX,
    check_game,
    check_mutation,
    check_request,
    check_socket,
    editor_page_redirect,
    header_map,
    is_browser_request,
    is_loopback_peer,
)
from ._hostpage import gate_page, host_page, version_gate
from ._pageroutes import register_workbench_routes
from ._routes import Context, create_app
from ._tabs import OUTBOX_FRAMES, Frame, Hub, Tab

__all__ = [
    "FORBIDDEN_HOST",
    "FORBIDDEN_ORIGIN",
    "FORBIDDEN_REMOTE",
    "MISSING_X_PIX3",
    "OUTBOX_FRAMES",
    "PREFIX",
    "Barrier",
    "Context",
    "Frame",
    "Hub",
    "Tab",
    "check_game",
    "check_mutation",
    "check_request",
    "check_socket",
    "create_app",
    "editor_page_redirect",
    "gate_page",
    "header_map",
    "host_page",
    "is_browser_request",
    "is_loopback_peer",
    "parse_expect",
    "parse_timeout",
    "register_workbench_routes",
    "version_gate",
]
