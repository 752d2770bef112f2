"""The CDP proxy's transport, around the pure router of `pix3net.wire.router`.

Modules:

- `transport`: the thin loop: accept, read a head, answer or upgrade, read frames.
- `_executor`: the router's actions carried out: the Chrome queue, cutting slow clients, the proxy's own calls.
- `_jsonroutes`: the `/json/*` answers, each with its proof.
- `channel`: the seam between the proxy and whatever speaks CDP to Chrome.
- `_listener`: who gets a connection, and how long it may take to ask.
- `_hot`: the hot path: one thread routes whole messages between the pipe and the clients.
- `outbound`: one client's outbound side: a byte-bounded queue and its writer.
- `_status`: what `pix3 editor --status` learns from the proxy.
- `_views`: the views of the clients: what `--watch` asks every second, and `--kick`.
- `watchdog`: the watchdog over the editor tab and its game frames, pure.
- `_watchrun`: the watchdog's transport: its session on the editor tab.
- `agentspush`: the editor page's Agents view, pure: what is pushed and when.
- `_agentsview`: the Agents view's transport: thumbnails and pushes through the watchdog's session.
"""
