"""`pix3 editor`: dev server, Chrome owner and editor tab, locally and in Remote SSH mode.

The command is `pix3net.commands.editor.command:run`. Modules: `args` (flags, the `--url` rule, remote-host
mode), `chromestep` (the Chrome step: port, owner, tab), `together` (the cold start of both daemons),
`reuse` (a running owner), `remotessh` (both sides of Remote SSH), `forwardports` (the forwards
the proxy proves for), `proxycalls` (its calls through the proxy, on plain sockets). The dev
server is found and started by `pix3net.devserver.control`, `--status` is
`pix3net.clients.ownerstatus`. Nothing is imported here: `pix3 --version` must stay light.
"""
