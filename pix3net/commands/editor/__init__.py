"""`pix3 editor`: dev server, Chrome owner and editor tab, locally and in Remote SSH mode.

The command is `pix3net.commands.editor.command:run`. Modules: `args` (flags, the `--url` rule, remote-host
mode), `chromestep` (the Chrome step: port, owner, tab), `together` (the cold start of both daemons),
`reuse` (a running owner), `remotessh` (both sides of Remote SSH), `forwardports` (the forwards
the proxy proves for), `proxycalls` (its calls through the proxy, on plain sockets). The dev
server is found and started by `pix3net.devserver.control`, `--status` is
`pix3net.clients.ownerstatus`. Nothing is imported here: `pix3 --version` must stay light.

Modules:

- `command`: the flow: from a project to an agent driving its editor.
- `args`: the flags, the `--url` rule, remote-host mode.
- `chromestep`: the Chrome step: port, owner, editor tab.
- `together`: the cold start of both daemons.
- `reuse`: everything already runs: one probe of each daemon.
- `remotessh`: both sides of Remote SSH.
- `forwardports`: the SSH forwards the proxy proves for.
- `proxycalls`: its calls through the proxy, in the editor's own terms.
- `watch`: `--watch --json` and `--kick`.
- `watchview`: `--watch` in a terminal.
"""
