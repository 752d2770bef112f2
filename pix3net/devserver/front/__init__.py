"""The dev server's front door: what stands between a browser and the `/__pix3` app or Vite.

Modules (docs/devserver.md, "Shape"):

- `bind`: the public loopback sockets, bound before anything heavy is imported
  (`choose_sockets`, `bind_one`, `PortError`); standard library only.
- `listener`: the public listener, a thread per connection under a connection cap
  (`PublicListener`, `connection_cap`, `raise_fd_limit`).
- `splice`: one public connection: plain requests for Vite relayed byte for byte, the rest
  handed to Hypercorn (`serve_connection`, the time limits).
- `splicestep`: the splice's decisions, sans-IO: relay a head to Vite or hand the connection
  off (`on_head`), retry, 502 or close once Vite failed (`after_vite_failed`).
- `door`: the front door's rules bound to one server's facts (its public names, the project,
  the folders `/@fs/` may name), built once and shared by the splice and the dispatcher (`Door`).
- `targets`: which request targets go through to Vite or the folder (pure; `route_of`,
  `refusal`, `foreign_navigation`).
- `vitelink`: the rules for the front door's connections to Vite, asked by the splice and the
  ASGI proxy alike (`reusable`, `may_retry`: when a request may go again on a fresh connection).
- `dispatch`: behind Hypercorn, every request's first stop (`Dispatch`, the ASGI application).
- `viteproxy`: the ASGI reverse proxy to Vite, HTTP and WebSocket (`ViteProxy`).
- `plainfiles`: without Vite, the project folder served as plain files (`serve_static`).
- `vite`: Vite as a supervised child (`Vite`).

Nothing is imported here: `bind` must load without trio (the command binds its sockets first),
so each user imports the module it needs.
"""
