"""`pix3 editor` arguments (spec/cdp.md §7, plus `--remote-port` of the seed README's Remote SSH).

Every flag is its own token (no ``=`` forms). A value is missing when absent or starting with
``-``. Pure: argv in, a parse or an error message out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from pix3net.cli._port import parse_port


class EditorArgError(ValueError):
    pass


@dataclass
class EditorArgs:
    project: str | None = None
    stop: bool = False
    stop_chrome: bool = False
    chrome_only: bool = False
    no_chrome: bool = False
    headless: bool = False
    port: int | None = None
    cdp_port: int | None = None
    url: str | None = None
    ssh_host: str | None = None
    remote_port: int | None = None
    help: bool = False


_BOOLEANS = {
    "--stop": "stop",
    "--stop-chrome": "stop_chrome",
    "--chrome-only": "chrome_only",
    "--no-chrome": "no_chrome",
    "--headless": "headless",
}
_PORTS = {"--port": "port", "--cdp-port": "cdp_port", "--remote-port": "remote_port"}


def editor_url_of(text: str) -> str:
    """``--url`` normalised to the editor URL: origin + path without trailing ``/`` and ``/__pix3``,
    then ``/__pix3/`` (query and fragment dropped)."""
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 — raises on a bad port
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise EditorArgError(f'--url needs an http(s) URL, not "{text}"')
    path = parts.path.rstrip("/").removesuffix("/__pix3").rstrip("/")
    return f"{parts.scheme}://{parts.netloc.lower()}{path}/__pix3/"


def parse_editor_args(argv: list[str]) -> EditorArgs:
    args = EditorArgs()
    if "--help" in argv or "-h" in argv:
        args.help = True
        return args
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in _BOOLEANS:
            setattr(args, _BOOLEANS[token], True)
            i += 1
            continue
        if token not in _PORTS and token not in ("--project", "--url", "--ssh"):
            raise EditorArgError(f'unknown option "{token}"')
        value = argv[i + 1] if i + 1 < len(argv) else None
        if value is None or value.startswith("-"):
            raise EditorArgError(f"{token} needs a value")
        if token in _PORTS:
            port = parse_port(value)
            if port is None:
                raise EditorArgError(f"{token} needs a port")
            setattr(args, _PORTS[token], port)
        elif token == "--project":
            args.project = value
        elif token == "--url":
            args.url = editor_url_of(value)
            args.chrome_only = True
        else:
            args.ssh_host = value
        i += 2
    return args


def is_remote_host(env: Mapping[str, str], *, headless: bool) -> bool:
    """The remote host of Remote SSH: ``SSH_CONNECTION`` set; ``--headless`` or ``PIX3_CHROME``
    disables it (harnesses on SSH boxes, spec/cdp.md §9)."""
    return bool(env.get("SSH_CONNECTION")) and not headless and not env.get("PIX3_CHROME")
