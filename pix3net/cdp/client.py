"""pix3's own WebSocket client to the proxy (``_wsclient``), for the commands that talk CDP through
it: no ``Origin``, no extensions, always closes (a refused upgrade is an answer pix3 expects)."""

from pix3net.cdp._wsclient import Closed, Rejected, WsClient

__all__ = ["Closed", "Rejected", "WsClient"]
