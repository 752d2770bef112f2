"""How a short command reaches a running daemon: one module per way of asking.

Modules:

- `probe`: loopback HTTP probes of both daemons on a plain socket, and the one proved connection.
- `cdp`: the one client of the proxy's WebSocket, sans-IO: handshake, frames, a call and its reply.
- `cdpsocket`: that client over a plain socket, for `pix3 editor` (no trio on its reuse path).
- `cdptrio`: that client over trio: calls by id, events by session (smoke, `port`, the tests).
- `port`: prove, inspect and choose the proxy's port.
- `ownerstatus`: the shared Chrome's status: owner, editor tab, agents.
- `flush`: the flush client: a running editor writes its unsaved scenes.
"""
