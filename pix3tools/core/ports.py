"""The two default ports, each defined once: the usage texts print them, the commands use them.

Standard library only (nothing imported at all): `pix3 editor`, `pix3 agent-setup`, the CDP proxy's
client side and the dev server's binder all read them from here (docs/devserver.md, "Running it";
docs/cdp-proxy.md).
"""

from __future__ import annotations

CDP_PORT = 9333  # the reference's CDP proxy port (`pix3 editor`, `agent-setup`, the SSH forward)
CDP_PORT_SPAN = 6  # `pix3 editor` tries CDP_PORT..CDP_PORT+6, the reference's 7 ports
DEV_PORT = 5173  # Vite's default, which the dev server keeps: the first free one from here
