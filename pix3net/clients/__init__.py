"""How a short command reaches a daemon of pix3's: one module per transport.

- `cdp`: the CDP client of the proxy's WebSocket, sans-IO (the handshake with the token and the
  client's name, frames both ways, a call and its reply by id).
- `cdpsocket`: that client over a plain blocking socket (`pix3 editor`: no trio on its way).
- `cdptrio`: that client over trio (`WsClient`, `Connection`: calls by id, events by session;
  `pix3 smoke`, `cdp.port`, the tests and benches).

Nothing is imported here: `pix3 editor` must not pay for trio.
"""
