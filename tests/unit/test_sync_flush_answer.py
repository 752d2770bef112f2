"""One reading of a flush reply, shared by `pix3 check`'s flush client and the dev server's own
`/api/check` (docs/devserver.md "The flush client")."""

from __future__ import annotations

import pytest

from pix3net.clients.flush import SyncOutcome, read_flush_answer

URL = "http://localhost:5173/"


@pytest.mark.parametrize(
    ("body", "status", "outcome"),
    [
        ({"ok": False, "reason": "gesture_in_progress"}, 200, SyncOutcome("unsynced", URL, "gesture_in_progress")),
        ({"ok": False}, 200, SyncOutcome("unsynced", URL, "HTTP 200")),
        ({"ok": False, "reason": ""}, 503, SyncOutcome("unsynced", URL, "HTTP 503")),
        ({"ok": False, "reason": None}, 500, SyncOutcome("unsynced", URL, "HTTP 500")),
        ({"ok": False, "reason": 5}, 200, SyncOutcome("unsynced", URL, "5")),
        ({"ok": True, "editor": True, "flushed": True}, 200, SyncOutcome("flushed", URL)),
        ({"ok": True, "editor": False, "flushed": False}, 200, SyncOutcome("no-editor", URL)),
        ({"editor": []}, 200, SyncOutcome("flushed", URL)),  # truthy as the reference reads it
        ({"editor": 0}, 200, SyncOutcome("no-editor", URL)),
        ({"ok": 0, "editor": True}, 200, SyncOutcome("flushed", URL)),  # only `ok === false` fails
        ({"error": "forbidden_host", "message": "Forbidden host."}, 403, SyncOutcome("no-editor", URL)),
        ([], 200, SyncOutcome("no-editor", URL)),
        (None, 200, SyncOutcome("no-editor", URL)),
    ],
)
def test_a_flush_reply_read_one_way(body: object, status: int, outcome: SyncOutcome) -> None:
    assert read_flush_answer(body, status, URL) == outcome
