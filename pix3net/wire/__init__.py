"""What crosses a socket, as bytes and rules: sans-IO, standard library only, tested as traces.

Both daemons and every client read and write the wire through these modules, and none of them opens
a socket. The one file touched here is the token file (the proof and the Bearer check are its only
users). Nothing of ours is imported but `pix3tools.core`.

Modules:

- `websocket`: RFC 6455's opening handshake as each end checks it, the opcodes, a frame's header.
- `frames`: WebSocket frames between a client and the proxy, parsed and built.
- `hostrule`: the one Host rule of both daemons: loopback names and the configured public names.
- `httphead`: the one HTTP/1 head parser: requests and answers, for the splice, the proxy and the clients.
- `httpwire`: the proxy's HTTP/1.1 requests and answers, on the one head parser.
- `envelope`: a CDP message's `id` and `sessionId`, found and changed without re-serialising.
- `router`: the pure CDP multiplexer: many clients over Chrome's one pipe.
- `_owners`: who opened what in the shared Chrome, and what no client may touch (the router's).
- `_actions`: what the router tells its transport to do.
- `_routerstate`: what the router remembers: pending ids, clients.
- `recentcalls`: a client's recent calls, kept for the views only while someone watches.
- `proof`: challenge and proof: a client learns that a port knows its token without sending it.
- `token`: the token file `$PIX3_HOME/cdp-token`.
- `auth`: who may talk to the proxy: Origin, Host, Bearer, and the answer headers.
- `proxypaths`: the proxy's own HTTP paths beside `/json/version` and `/json/list`.
"""
