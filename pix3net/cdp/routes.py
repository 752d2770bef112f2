"""The proxy's own HTTP path beside the reference's `/json/version` and `/json/list`
(docs/cdp-proxy.md, "Status"). Nothing imported: `pix3 editor --status` and the dev server use it
without loading the proxy."""

from __future__ import annotations

STATUS_PATH = "/json/pix3/status"
