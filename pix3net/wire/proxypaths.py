"""The proxy's own HTTP path beside the reference's `/json/version` and `/json/list`
(docs/cdp-proxy.md, "Status"). Nothing imported: `pix3 editor --status` and the dev server use it
without loading the proxy."""

from __future__ import annotations

STATUS_PATH = "/json/pix3/status"
# `pix3 editor --watch`: the status with each client's facts and recent calls (docs/cdp-proxy.md,
# "Watching"); asking turns the recording of recent calls on for a few seconds.
WATCH_PATH = "/json/pix3/watch"
# `pix3 editor --kick`: POST with `?client=<n>` ends that client.
KICK_PATH = "/json/pix3/kick"
