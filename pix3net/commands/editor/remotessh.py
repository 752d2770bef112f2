"""Remote SSH: both sides of `pix3 editor` (docs/editor.md, "Remote SSH").

Remote host (``SSH_CONNECTION``, no ``--headless``, no ``PIX3_CHROME``): the dev server as usual,
no Chrome; the instructions for the human's machine and whether the forward of the human's proxy
is live, proved with the token of ``remote-cdp-token`` in the forward scope (docs/cdp-proxy.md, "Proof").
One port, configured on both sides: ``--cdp-port`` here (stored), ``--remote-port`` there.

Human machine (``--chrome-only --url``): Chrome behind the proxy as always, the forwarded port
recorded in ``cdp-forward-ports.json`` for that SSH host (``forwards``: the proxy proves the
forward scope only for the ports of live launches), and the line that copies the token over
SSH — the token itself is never printed. That line asks for no forward (``ClearAllForwardings``):
it runs while the session with the ``RemoteForward`` is up, which already holds the port, and
with ``ExitOnForwardFailure yes`` a second request for it would end the copy with exit 255.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from pix3net.commands.agentsetup.remoteforward import read_remote_token
from pix3net.daemon.devrecord import DevInfo
from pix3net.wire.token import new_token
from pix3tools.core.ports import CDP_PORT


def remote_forward_lines(remote_port: int, local_port: int = CDP_PORT) -> list[str]:
    return [f"RemoteForward 127.0.0.1:{remote_port} 127.0.0.1:{local_port}", "ExitOnForwardFailure yes"]


# The copy runs while the SSH session is up: it must not ask for the config's RemoteForward again.
NO_FORWARDS = "-o ClearAllForwardings=yes"


def token_copy_line(token_path: str, host: str | None, platform: str = sys.platform) -> str:
    """The line that moves the token through the SSH channel into a 0600 file on the remote host."""
    host = host or "<ssh-host>"
    remote = "umask 077 && mkdir -p ~/.pix3 && cat > ~/.pix3/remote-cdp-token"
    if platform == "win32":
        return f'type "{token_path}" | ssh {NO_FORWARDS} {host} "{remote}"'
    return f"ssh {NO_FORWARDS} {host} '{remote}' < {shlex.quote(token_path)}"


def human_side_block(token_path: str, ssh_host: str | None, remote_port: int, local_port: int) -> list[str]:
    return [
        "",
        "For a coding agent on the remote host (once per token): copy the token there over SSH (the line asks",
        "for no port forward, so it works while your SSH session with the RemoteForward is up) —",
        f"  {token_copy_line(token_path, ssh_host)}",
        "then run `pix3 agent-setup --remote` there and start a new agent thread. Your ~/.ssh/config",
        f"must bring this proxy back to the remote host (the port pix3 editor printed there, here {remote_port}):",
        *(f"  {line}" for line in remote_forward_lines(remote_port, local_port)),
    ]


def remote_host_block(home: Path, info: DevInfo, forward_port: int) -> list[str]:
    """The instructions printed on the remote host, ending with the state of the forward."""
    from pix3net.clients import probe

    token = read_remote_token(home)
    url = info.public_editor_url or info.editor_url
    dev_port = info.port if info.port is not None else "<dev port>"
    lines = [
        "",
        "SSH session: Chrome is not launched here — it runs on the machine with your screen, and an agent",
        "here drives it through an SSH port forward of its CDP token proxy.",
        "",
        "  On your machine, once — ~/.ssh/config, under the Host you connect to, then reconnect:",
        *(f"      {line}" for line in remote_forward_lines(forward_port)),
        f"  On your machine, each session — VS Code forwards port {dev_port} (its Ports tab shows the local address):",
        f"      pix3 editor --chrome-only --url {url} --remote-port {forward_port}",
        (
            f"    ({info.public_editor_url} is where a browser reached this server; dev.json publicEditorUrl)"
            if info.public_editor_url
            else f"    (use the local address of port {dev_port} if VS Code forwarded it to another port)"
        ),
        "    It prints one ssh line that copies its CDP token here; run that line on your machine.",
        "  Here, once: pix3 agent-setup --remote, then start a new agent thread.",
        "",
    ]
    kind, detail = probe.prove(forward_port, token or new_token(), forward=True)
    if kind == "foreign":
        lines.append(f"  Port {forward_port}: {detail}")
    if token is None:
        lines.append("  CDP forward: no token here yet (~/.pix3/remote-cdp-token).")
    elif kind == "ours":
        lines.append(
            f"  CDP forward: live on 127.0.0.1:{forward_port} — it proved it knows the token of ~/.pix3/remote-cdp-token."
        )
    elif kind == "foreign":
        lines.append(
            f"  CDP forward: port {forward_port} here is held by something that cannot prove it knows the token"
            " (another user's forward, or a squatter): pick another with pix3 editor --cdp-port <n> here, and"
            " the same <n> in RemoteForward and in --remote-port on your machine."
        )
    else:
        lines.append(
            f"  CDP forward: nothing answers with the token on 127.0.0.1:{forward_port} yet (is the SSH session up"
            " with the RemoteForward line, and pix3 editor --chrome-only running on your machine?)."
        )
    return lines
