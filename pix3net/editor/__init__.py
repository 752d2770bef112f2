"""`pix3 editor`: dev server, Chrome owner and editor tab, locally and in Remote SSH mode.

The command is `pix3net.editor.command:run`. Modules: `args` (flags, the `--url` rule, remote-host
mode), `devserver` (find/start/stop the project's server), `browser` (the Chrome step: port,
owner, tab), `remote` (both sides of Remote SSH), `_cdp` (the calls into `pix3net.cdp.port`).
Nothing is imported here: `pix3 --version` must stay light.
"""
