"""What only CDP sees of a smoke run (docs/smoke.md, "What is judged, and by whom").

The game page's probe (``recorder.js``, shared with the editor page) collects the facts a run is
judged on, and the shared rules (``judge.js``) judge them in the page at the end. This collector
keeps what the page cannot see of itself: a renderer crash, a dialog the probe did not answer
(which CDP must answer, or the page waits forever), a request that got no answer at all and why
(``net::ERR_CONNECTION_REFUSED``), a navigation the probe could not stop, and the probe's own
``end`` and heartbeat messages through the binding, which say when the run is over.

Sans-IO: :meth:`Collector.feed` takes one event (method, params) of the page's session in Chrome's
order and returns the CDP calls to make (answering a dialog); :meth:`Collector.context` is what the
shared rules are given at the end.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["BINDING", "PAGE_SCRIPT_URL", "Call", "Collector"]

BINDING = "__pix3Smoke"  # the page script's Runtime binding (the installer in _run.page_script)
PAGE_SCRIPT_URL = "pix3-probe://recorder.js"  # its sourceURL (recorder.js's): its frames are dropped from stacks

Call = tuple[str, dict[str, Any]]  # a CDP call to make on the page's session
# Scripts remembered to name a loop's frames: a game's modules are a few hundred; one that
# evaluates code without end must not grow smoke without end.
MAX_SCRIPTS = 20_000


class Collector:
    def __init__(self, origin: str, frames_requested: int) -> None:
        self.origin = origin
        self.frames_requested = frames_requested
        self.page_url = origin + "/"  # the game page, once the run navigates to it
        self.frame = 0  # the last frame the probe's heartbeat named
        self.ended: str | None = None  # why the probe ended the run: done, navigation, document
        self.crashed = False
        self.load_failed = False  # the game page itself did not load: the probe never ran
        self.load_error: str | None = None
        self.left: str | None = None  # a navigation the probe could not stop (the URL it went to)
        self.dialogs: list[dict[str, Any]] = []
        self.network: dict[str, str] = {}  # URL → why it failed, as the network saw it
        self._requests: dict[str, str] = {}  # request id → URL
        self._document: str | None = None  # the game document's loader id, once committed
        self.main_frame: str | None = None  # the page target's main frame id
        # scriptId → URL (Debugger.scriptParsed): a paused loop's frames are named by these
        self.scripts: dict[str, str] = {}

    @property
    def finished(self) -> bool:
        return self.ended is not None or self.crashed or self.load_failed or self.left is not None

    def navigation_failed(self, url: str, error_text: str) -> None:
        self.load_error = f"the game page {url} did not load ({error_text})."
        self.load_failed = True

    def feed(self, method: str, params: dict[str, Any]) -> list[Call]:
        if method == "Runtime.bindingCalled":
            if params.get("name") == BINDING:
                self._binding(params.get("payload"))
        elif method == "Page.javascriptDialogOpening":
            return self._dialog(params)
        elif method == "Page.javascriptDialogClosed":
            for dialog in self.dialogs:
                dialog.pop("open", None)
        elif method == "Network.requestWillBeSent":
            request = params.get("request") or {}
            if isinstance(request.get("url"), str):
                self._requests[str(params.get("requestId"))] = request["url"]
        elif method == "Network.responseReceived":
            response = params.get("response") or {}
            status, url = response.get("status"), response.get("url")
            if isinstance(status, int) and isinstance(url, str) and status >= 400:
                self.network.setdefault(url, f"HTTP {status}")
        elif method == "Network.loadingFailed":
            self._loading_failed(params)
        elif method == "Page.frameNavigated":
            self._navigated(params.get("frame") or {})
        elif method == "Inspector.targetCrashed":
            self.crashed = True
        elif method == "Debugger.scriptParsed":
            script, url = params.get("scriptId"), params.get("url")
            if isinstance(script, str) and isinstance(url, str) and url and len(self.scripts) < MAX_SCRIPTS:
                self.scripts[script] = url
        return []

    def _binding(self, payload: Any) -> None:
        try:
            message = json.loads(payload) if isinstance(payload, str) else None
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        kind = message.get("kind")
        if kind == "beat" and isinstance(message.get("frame"), int):
            self.frame = message["frame"]
        elif kind == "end" and isinstance(message.get("why"), str):
            self.ended = message["why"]

    def _dialog(self, params: dict[str, Any]) -> list[Call]:
        """A dialog the probe did not answer (opened by a nested frame, or on unload): answered
        here so that the page goes on, and reported (``W_SMOKE_DIALOG`` by the shared rules)."""
        kind = params.get("type")
        message = params.get("message")
        self.dialogs.append(
            {
                "type": kind if isinstance(kind, str) else "dialog",
                "text": message if isinstance(message, str) else "",
                "frame": self.frame,
                "open": True,  # until Chrome says it closed: a timeout then says the page was blocked
            }
        )
        answer: dict[str, Any] = {"accept": True}
        prompt = params.get("defaultPrompt")
        if isinstance(prompt, str):
            answer["promptText"] = prompt
        return [("Page.handleJavaScriptDialog", answer)]

    def _loading_failed(self, params: dict[str, Any]) -> None:
        """A request that got no answer; a cancel right after an answer ≥ 400 is Chrome dropping
        the body, not a failure of its own."""
        url = self._requests.get(str(params.get("requestId")))
        if url is None or url in self.network:
            return
        if params.get("canceled") and not params.get("blockedReason"):
            return
        why = params.get("blockedReason") or params.get("errorText") or "no answer"
        self.network[url] = str(why)

    def _navigated(self, frame: dict[str, Any]) -> None:
        if frame.get("parentId") or (self.main_frame is not None and frame.get("id") != self.main_frame):
            return
        loader = frame.get("loaderId")
        if self._document is None:
            self._document = loader if isinstance(loader, str) else ""
        elif loader != self._document:
            url = frame.get("url")
            self.left = url if isinstance(url, str) else "another page"

    def context(self, advice: str, timed_out: float | None = None) -> dict[str, Any]:
        """What the shared rules are told besides the page's own facts."""
        ctx: dict[str, Any] = {
            "origin": self.origin,
            "pageUrl": self.page_url,
            "advice": advice,
            "framesRequested": self.frames_requested,
            "network": self.network,
            "dialogs": self.dialogs,
        }
        if self.left is not None:
            ctx["left"] = self.left
        if timed_out is not None:
            ctx["timedOut"] = timed_out
        return ctx
