"""A sans-IO fake Chrome: CDP messages in, messages out, no I/O.

Targets ``T<n>`` and sessions ``S<n>`` share one counter; the browser target comes first, then
one page per initial URL (title = URL). Output is shaped like Chrome's own: compact JSON with
``id`` (replies) or ``method`` (events) first and ``sessionId`` last, so the proxy's fast path
is exercised the way real Chrome exercises it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

PRODUCT = "FakeChrome/1.0"
VERSION = {
    "protocolVersion": "1.3",
    "product": PRODUCT,
    "revision": "@fake",
    "userAgent": "FakeChrome",
    "jsVersion": "0",
}
# A headless Chrome says so in its user agent only (`HeadlessChrome/<version>`; its product is the
# plain `Chrome/<version>`), which is how `pix3 editor` tells a headless Chrome it reuses.
HEADLESS_USER_AGENT = "FakeChrome HeadlessChrome/1.0"


@dataclass
class Target:
    id: str
    type: str
    url: str
    context: str = "default"
    opener: str | None = None

    def info(self, attached: bool) -> dict[str, Any]:
        info = {"targetId": self.id, "type": self.type, "url": self.url, "title": self.url, "attached": attached}
        info["browserContextId"] = self.context
        if self.opener is not None:
            info["openerId"] = self.opener
        return info


@dataclass
class Session:
    id: str
    kind: str  # "browser" | "page"
    target: str
    parent: str  # "" = the pipe root
    auto_attach: bool = False


def _dump(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


class CdpError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class FakeChrome:
    urls: list[str] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    closed: bool = False  # Browser.close was answered: Chrome ends now
    headless: bool = False  # started with --headless: the user agent says HeadlessChrome

    def __post_init__(self) -> None:
        self._counter = 0
        self._block = b""
        self.targets: dict[str, Target] = {}
        self.sessions: dict[str, Session] = {}
        self.contexts: set[str] = set()
        self.discovering = False  # Target.setDiscoverTargets on the pipe root
        self.browser = self._new_target("browser", "")
        for url in self.urls:
            self._new_target("page", url)

    # -- helpers ---------------------------------------------------------------------------
    def _next(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def _new_target(self, kind: str, url: str) -> Target:
        target = Target(self._next("T"), kind, url)
        self.targets[target.id] = target
        return target

    def add_target(self, kind: str, url: str) -> Target:
        """A target Chrome has on its own (e.g. ``browser_ui``: the omnibox popup)."""
        return self._new_target(kind, url)

    def open_popup(self, opener: str) -> tuple[Target, list[bytes]]:
        """A page opens another (``window.open``): the new target and what Chrome writes."""
        target = self._new_target("page", "about:blank")
        target.opener = opener
        out: list[bytes] = []
        self._announce("Target.targetCreated", {"targetInfo": target.info(False)}, out)
        return target, out

    def close_page(self, target_id: str) -> list[bytes]:
        """A page closes by itself (``window.close()``, the user): what Chrome writes."""
        out: list[bytes] = []
        self._close(target_id, out)
        return out

    def _announce(self, method: str, params: dict[str, Any], out: list[bytes]) -> None:
        if self.discovering and method:
            out.append(self._event(method, params, ""))

    def _close(self, target_id: str, out: list[bytes]) -> bool:
        target = self.targets.pop(target_id, None)
        if target is None:
            return False
        for session in [s for s in self.sessions.values() if s.target == target.id]:
            if session.id in self.sessions:
                self._detach(session, out, event=True)
        self._announce("Target.targetDestroyed", {"targetId": target.id}, out)
        return True

    def pages(self) -> list[Target]:
        return [t for t in self.targets.values() if t.type == "page"]

    @staticmethod
    def _event(method: str, params: dict[str, Any], session: str) -> bytes:
        message: dict[str, Any] = {"method": method, "params": params}
        if session:
            message["sessionId"] = session
        return _dump(message)

    def _attach(self, target: Target, kind: str, parent: str, out: list[bytes]) -> Session:
        session = Session(self._next("S"), kind, target.id, parent)
        self.sessions[session.id] = session
        params = {"sessionId": session.id, "targetInfo": target.info(True), "waitingForDebugger": False}
        out.append(self._event("Target.attachedToTarget", params, parent))
        return session

    def _detach(self, session: Session, out: list[bytes], *, event: bool) -> None:
        for child in [s for s in self.sessions.values() if s.parent == session.id]:
            self._detach(child, out, event=False)  # children go silently
        self.sessions.pop(session.id, None)
        if event:
            params = {"sessionId": session.id, "targetId": session.target}
            out.append(self._event("Target.detachedFromTarget", params, session.parent))

    def _big(self, message_id: Any, size: int, session: Any) -> bytes:
        """``Fake.big {bytes}``: a stand-in for a 30 MB screenshot, ``{"data": "AAAA…"}``, built
        as Chrome writes it (bytes, session spliced last) and cheaply, so benches time the proxy."""
        tail = b',"sessionId":' + json.dumps(session).encode() + b"}" if session is not None else b"}"
        if len(self._block) != size:
            self._block = b"A" * size
        head = b'{"id":' + json.dumps(message_id).encode() + b',"result":{"data":"'
        return b"".join((head, self._block, b'"}', tail))

    # -- the protocol ------------------------------------------------------------------------
    def handle(self, raw: bytes) -> list[bytes]:
        """One command in; the events and the reply Chrome would write, in order."""
        try:
            message = json.loads(raw)
        except ValueError:
            return []
        if not isinstance(message, dict):
            return []
        self.received.append(message)
        out: list[bytes] = []
        session_id = message.get("sessionId")
        if message.get("method") == "Fake.big" and (session_id is None or session_id in self.sessions):
            out.append(self._big(message.get("id"), int((message.get("params") or {}).get("bytes", 0)), session_id))
            return out
        reply: dict[str, Any] = {"id": message.get("id")}
        try:
            if session_id is not None and session_id not in self.sessions:
                raise CdpError(-32001, "Session with given id not found.")
            caller = self.sessions.get(session_id) if isinstance(session_id, str) else None
            result = self._command(str(message.get("method")), message.get("params") or {}, caller, out)
            reply["result"] = result
        except CdpError as error:
            reply["error"] = {"code": error.code, "message": error.message}
        if session_id is not None:
            reply["sessionId"] = session_id
        out.append(_dump(reply))
        return out

    def _command(self, method: str, params: dict[str, Any], caller: Session | None, out: list[bytes]) -> Any:
        here = caller.id if caller else ""
        if method == "Browser.getVersion":
            return {**VERSION, "userAgent": HEADLESS_USER_AGENT} if self.headless else dict(VERSION)
        if method == "Browser.close":
            self.closed = True
            return {}
        if method == "Target.attachToBrowserTarget":
            return {"sessionId": self._attach(self.browser, "browser", here, out).id}
        if method == "Target.attachToTarget":
            target = self.targets.get(params.get("targetId", ""))
            if target is None or target.type != "page":
                raise CdpError(-32602, "No target with given id found")
            return {"sessionId": self._attach(target, "page", here, out).id}
        if method == "Target.detachFromTarget":
            session = self.sessions.get(params.get("sessionId", ""))
            if session is None or session.parent != here:
                raise CdpError(-32602, "No session with given id")
            self._detach(session, out, event=True)
            return {}
        if method == "Target.setAutoAttach":
            if caller is not None and caller.kind == "browser" and params.get("autoAttach"):
                caller.auto_attach = True
                for page in self.pages():
                    self._attach(page, "page", caller.id, out)
            return {}
        if method == "Target.getTargets":
            attached = {s.target for s in self.sessions.values()}
            return {"targetInfos": [t.info(t.id in attached) for t in self.targets.values()]}
        if method == "Target.setDiscoverTargets":
            if caller is None:
                self.discovering = bool(params.get("discover"))
                for target in self.targets.values():
                    if target.type not in ("browser", "tab"):
                        self._announce("Target.targetCreated", {"targetInfo": target.info(False)}, out)
            return {}
        if method == "Target.createBrowserContext":
            context = self._next("X")
            self.contexts.add(context)
            return {"browserContextId": context}
        if method == "Target.disposeBrowserContext":
            context = params.get("browserContextId", "")
            if context not in self.contexts:
                raise CdpError(-32602, "Failed to find context with id " + str(context))
            self.contexts.discard(context)
            for target in [t for t in self.targets.values() if t.context == context]:
                self._close(target.id, out)
            return {}
        if method == "Target.createTarget":
            context = str(params.get("browserContextId", "default"))
            if context != "default" and context not in self.contexts:
                raise CdpError(-32602, "Failed to find browser context with id " + context)
            target = self._new_target("page", str(params.get("url", "about:blank")))
            target.context = context
            self._announce("Target.targetCreated", {"targetInfo": target.info(False)}, out)
            for session in list(self.sessions.values()):
                if session.auto_attach:
                    self._attach(target, "page", session.id, out)
            return {"targetId": target.id}
        if method == "Target.closeTarget":
            if not self._close(params.get("targetId", ""), out):
                raise CdpError(-32602, "No target with given id found")
            return {"success": True}
        if method == "Runtime.evaluate":
            if caller is None or caller.kind != "page":
                raise CdpError(-32601, "'Runtime.evaluate' wasn't found")
            if params.get("expression") == "location.href":  # the document's own address
                return {"result": {"type": "string", "value": self.targets[caller.target].url}}
            return {
                "result": {"type": "object", "value": {"expression": params.get("expression"), "session": caller.id}}
            }
        if method == "Page.navigate":
            if caller is None or caller.kind != "page":
                raise CdpError(-32601, "'Page.navigate' wasn't found")
            self.targets[caller.target].url = str(params.get("url", ""))
            return {"frameId": caller.target, "loaderId": f"L{caller.target}"}
        if method == "Fake.ping":
            out.append(self._event("Fake.pinged", {"by": here}, here))
            return {"pong": True}
        if method == "Fake.echo":
            return params
        raise CdpError(-32601, f"'{method}' wasn't found")
