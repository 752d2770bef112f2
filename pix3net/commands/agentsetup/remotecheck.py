"""`agent-setup`'s port, checked by proof before anything is written: the forwarded port of
`--remote` (docs/agent-setup.md, "Remote agents"), and the local proxy's port
(docs/agent-setup.md, "What is written").

The port is ``--cdp-port``, else the one `pix3 editor` stored on this host, else 9333. It must
prove, in the forward scope and for the port dialled, that it knows the token of
``remote-cdp-token``; the token is never sent to it before. Proven → written. Nothing listens
yet → written with a warning (it must once the SSH session is up). Something that cannot prove
→ nothing written, exit 1: a squatter waiting for the token, or a proxy not told the port.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from pix3net.commands.agentsetup.remoteforward import forward_port, read_remote_token


def remote_endpoint(home: Path, given_port: int | None, *, out: TextIO, err: TextIO) -> tuple[int, str] | None:
    """(port, token) to write, or None after saying on stderr why nothing is written."""
    from pix3net.clients.probe import prove

    token = read_remote_token(home)
    if token is None:
        err.write(
            "pix3 agent-setup --remote: no ~/.pix3/remote-cdp-token here. On the machine with your screen, run"
            " `pix3 editor --chrome-only --url <editor address>` and the ssh line it prints (it copies the token"
            " here), then run this again.\n"
        )
        return None
    port = forward_port(home, given_port)
    kind, detail = prove(port, token, forward=True)
    if kind == "ours":
        return port, token
    if kind == "closed":
        out.write(
            f"  Port {port} does not answer with the proof of the token now (nothing listens); written anyway"
            " — it must once the SSH session is up.\n"
        )
        return port, token
    err.write(
        f"pix3 agent-setup --remote: port {port} does not answer with the proof of the token of"
        f" ~/.pix3/remote-cdp-token ({detail}); nothing written. Either something else holds the port here and"
        " waits for the token, or the proxy on your machine was not told this port: run `pix3 editor"
        f" --chrome-only --url <editor address> --remote-port {port}` there (with `RemoteForward 127.0.0.1:{port}"
        " …` in ~/.ssh/config), or pick another port with --cdp-port on both sides.\n"
    )
    return None


def local_endpoint(port: int, token: str, recorded: int | None, *, err: TextIO) -> bool:
    """May the local config name ``port``? The agent will send the token there, so a port where
    something answers must prove, bound to itself (the port scope), that it is our proxy: a process
    squatting the port and passing requests on to our proxy elsewhere does not. Nothing listens →
    yes (`pix3 editor` starts the proxy there, as before). False after saying on stderr why
    nothing is written."""
    from pix3net.clients.probe import prove, squatted

    kind, detail = prove(port, token, also=(recorded,) if recorded is not None else ())
    if kind == "closed":
        detail = squatted(port)
    if kind == "ours" or not detail:
        return True
    err.write(
        f"pix3 agent-setup: port {port} is not our CDP proxy ({detail}); nothing written — the agent would send"
        f" the token there. Stop what holds port {port}, or run `pix3 editor` (it starts the proxy on a free"
        " port and records it) and run `pix3 agent-setup` again without --cdp-port.\n"
    )
    return False
