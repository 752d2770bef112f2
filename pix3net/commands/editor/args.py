"""`pix3 editor`'s arguments as the command reads them (docs/editor.md, "The flow" and
"Remote SSH"): the ``--url`` rule and a typed view of the parse. The syntax itself is
declared in ``pix3net.commands.editor.command``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple
from urllib.parse import urlsplit

from pix3net.wire.hostrule import EDITOR_NAME, is_loopback_name
from pix3tools.core.argv import Args, UsageError


class EditorArgs(NamedTuple):
    project: str | None = None
    stop: bool = False
    stop_chrome: bool = False
    status: bool = False
    watch: bool = False
    kick: str | None = None
    json: bool = False
    chrome_only: bool = False
    no_chrome: bool = False
    headless: bool = False
    port: int | None = None
    cdp_port: int | None = None
    url: str | None = None
    ssh_host: str | None = None
    remote_port: int | None = None

    @classmethod
    def of(cls, args: Args) -> EditorArgs:
        url = args.text("--url")
        return cls(
            project=args.text("--project"),
            stop=args.flag("--stop"),
            stop_chrome=args.flag("--stop-chrome"),
            status=args.flag("--status"),
            watch=args.flag("--watch"),
            kick=args.text("--kick"),
            json=args.flag("--json"),
            chrome_only=args.flag("--chrome-only") or url is not None,  # --url implies --chrome-only
            no_chrome=args.flag("--no-chrome"),
            headless=args.flag("--headless"),
            port=args.get("--port", int),
            cdp_port=args.get("--cdp-port", int),
            url=url,
            ssh_host=args.text("--ssh"),
            remote_port=args.get("--remote-port", int),
        )


def editor_url(name: str, text: str) -> str:
    """The ``--url`` option: the editor URL (origin + path without trailing ``/`` and ``/__pix3``,
    then ``/__pix3/``; query and fragment dropped), else a usage error."""
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 — raises on a bad port
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f'{name} needs an http(s) URL, not "{text}"')
    path = parts.path.rstrip("/").removesuffix("/__pix3").rstrip("/")
    netloc = parts.netloc.lower()
    name = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname.lower()
    if parts.scheme == "http" and is_loopback_name(name) and "@" not in netloc:
        # the dev server sends a browser's editor page under any other loopback name to this one
        # (docs/devserver.md, "The Host rule"): the tab is looked for where it will be
        netloc = EDITOR_NAME + (f":{parts.port}" if parts.port is not None else "")
    return f"{parts.scheme}://{netloc}{path}/__pix3/"


def is_remote_host(env: Mapping[str, str], *, headless: bool) -> bool:
    """The remote host of Remote SSH: ``SSH_CONNECTION`` set; ``--headless`` or ``PIX3_CHROME``
    disables it (test harnesses run on SSH boxes)."""
    return bool(env.get("SSH_CONNECTION")) and not headless and not env.get("PIX3_CHROME")
