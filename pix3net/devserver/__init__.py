"""The dev server: the `/__pix3/*` contract in front of a supervised Vite (docs/devserver.md).

Modules:

- `command`: `pix3 __dev-server [--project] [--port]`, the hidden command.
- `process`: the dev server process: bind, serve, record, stop.
- `wiring`: one dev server built: tabs, file store, barrier, app, dispatcher.
- `control`: the parent's side: find, start and stop the project's dev server.
- `front`: the front door: what stands between a browser and the app or Vite.
- `app`: the Quart app that answers `/__pix3/*`.
- `files`: the file API.
- `http`: what the three share: refusals, answers, bodies, media types.
- `page`: the editor page's files, and the one loader other packages read them through.
"""
