"""What a run collects from the game page's CDP events (docs/smoke.md, "What is collected").

Sans-IO: :meth:`Collector.feed` takes one event (method, params) of the page's session, in
Chrome's order, and keeps errors, warnings and logs stamped with the frame the page was in. The
page script's binding messages (``frame``, ``done``, ``console``) come in the same order as
``Runtime.exceptionThrown``, so an exception carries the frame it was thrown in.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote, urlsplit

from pix3net.smoke._loads import DEFAULT_ADVICE, ScriptLoads

__all__ = ["BINDING", "LOG_LINES", "PAGE_SCRIPT_URL", "Collector"]

BINDING = "__pix3Smoke"  # the page script's Runtime binding (page.js)
PAGE_SCRIPT_URL = "pix3-smoke://page.js"  # its sourceURL: its frames are dropped from stacks
LOG_LINES = 40  # console.log/info lines kept (all are counted)

# What the Pix3 runtime writes when it catches a script's throw, a tick's or a game command's:
# the same events the reference's script-error sink reports.
_SCRIPT_THREW = re.compile(r'^\[NodeBase\] Script "([^"]+)" threw in (\w+)\s*:?\s*(.*)$', re.DOTALL)
_TICK_THREW = "[SceneRunner] Error during game update"
_COMMAND_THREW = "[GameCommands]"
_PENDING = re.compile(r'^Component type "(.+?)" is not registered yet — kept as pending on node "(.+?)"')
_LOADER_PREFIXES = ("[SceneLoader]", "[AssetLoader]", "[ResourceManager]", "[SceneRunner]", "[SceneService]")
# Warnings every browser run of a dev build prints that say nothing about the game.
_DROPPED_WARNINGS = ("Lit is in dev mode", "THREE.Clock: ")
# Requests that are not the project's files: Vite's own modules, the dev server's API, packages.
_NOT_PROJECT = ("@vite/", "@id/", "@fs/", "@react-refresh", "__pix3/", "node_modules/")


def _phase(word: str) -> str:
    """``onStart`` → ``start`` (the reference's phase names)."""
    return word[2].lower() + word[3:] if word.startswith("on") and len(word) > 2 and word[2].isupper() else word


def exception_message(details: dict[str, Any]) -> str:
    """What was thrown, as ``String(error)`` reads it (``Error: boom``), without its stack."""
    exception = details.get("exception")
    if isinstance(exception, dict):
        description = exception.get("description")
        if isinstance(description, str) and exception.get("subtype") == "error":
            return description.split("\n    at ", 1)[0]
        if "value" in exception:
            value = exception["value"]
            return value if isinstance(value, str) else json.dumps(value)
        if isinstance(description, str):
            return description
    text = details.get("text")
    return text if isinstance(text, str) else "an exception"


def exception_stack(details: dict[str, Any]) -> str | None:
    """The thrown error's own stack, else one built from the frames Chrome recorded."""
    exception = details.get("exception")
    if isinstance(exception, dict) and exception.get("subtype") == "error":
        description = exception.get("description")
        if isinstance(description, str) and "\n    at " in description:
            return description
    frames = (details.get("stackTrace") or {}).get("callFrames")
    if not isinstance(frames, list) or not frames:
        # A module that does not parse has no stack: Chrome names only where the parse failed.
        url = details.get("url")
        if isinstance(url, str) and url and isinstance(details.get("lineNumber"), int):
            line, column = details["lineNumber"] + 1, int(details.get("columnNumber") or 0) + 1
            return f"{exception_message(details)}\n    at {url}:{line}:{column}"
        return None
    lines = [exception_message(details)]
    for frame in frames:
        if not isinstance(frame, dict):
            continue
        where = f"{frame.get('url', '')}:{int(frame.get('lineNumber', 0)) + 1}:{int(frame.get('columnNumber', 0)) + 1}"
        name = frame.get("functionName")
        lines.append(f"    at {name} ({where})" if name else f"    at {where}")
    return "\n".join(lines)


class Collector:
    def __init__(self, origin: str, frames_requested: int, *, advice: str = DEFAULT_ADVICE) -> None:
        self.origin = origin
        self.frames_requested = frames_requested
        self.page_url = origin + "/"  # the game page, once the run navigates to it
        self.frame = 0
        self.done = False
        self.loaded = False  # the page's `load` event fired
        self.load_failed = False  # E_SMOKE_LOAD for the document: the run ends
        self.crashed = False
        self.errors: list[dict[str, Any]] = []
        self.warnings: list[dict[str, Any]] = []
        self._warning_index: dict[tuple[str, str], dict[str, Any]] = {}
        self._by_exception: dict[int, dict[str, Any]] = {}
        self.log_count = 0
        self.log_lines: list[str] = []
        self.document_frame: str | None = None  # the page target's main frame id
        # Network events come from Chrome's network service, not in step with the page's own:
        # a failed request is stamped with the frame the page asked for it in.
        self._request_frames: dict[str, int] = {}
        self.scripts = ScriptLoads(self._script_name, advice)

    @property
    def finished(self) -> bool:
        return self.done or self.load_failed or self.crashed

    def error(self, code: str, message: str, *, frame: int | None = None, **extra: Any) -> dict[str, Any]:
        """Record an error: the producer's fields in their order, then ``frame``."""
        entry: dict[str, Any] = {"code": code}
        if "phase" in extra:
            entry["phase"] = extra.pop("phase")
        entry["message"] = message
        for key in ("script", "nodeId", "nodeName", "stack"):
            if extra.get(key) is not None:
                entry[key] = extra[key]
        entry["frame"] = self.frame if frame is None else frame
        self.errors.append(entry)
        return entry

    def warn(self, code: str, message: str, *, frame: int | None = None) -> None:
        key = (code, message)
        seen = self._warning_index.get(key)
        if seen is not None:
            seen["count"] = seen.get("count", 1) + 1
            return
        entry: dict[str, Any] = {"code": code, "frame": self.frame if frame is None else frame, "message": message}
        self._warning_index[key] = entry
        self.warnings.append(entry)

    def navigation_failed(self, url: str, error_text: str) -> None:
        self.error("E_SMOKE_LOAD", f"the game page {url} did not load ({error_text}).")
        self.load_failed = True

    def feed(self, method: str, params: dict[str, Any]) -> None:
        if method == "Runtime.bindingCalled":
            if params.get("name") == BINDING:
                self._binding(params.get("payload"))
        elif method == "Runtime.exceptionThrown":
            self._exception(params.get("exceptionDetails") or {})
        elif method == "Runtime.exceptionRevoked":
            entry = self._by_exception.pop(int(params.get("exceptionId", -1)), None)
            if entry is not None and entry in self.errors:
                self.errors.remove(entry)
        elif method == "Network.requestWillBeSent":
            self._request_frames[str(params.get("requestId"))] = self.frame
            request = params.get("request") or {}
            if isinstance(request.get("url"), str):
                self.scripts.requested(str(params.get("requestId")), request["url"], str(params.get("type") or ""))
        elif method == "Network.responseReceived":
            self._response(params)
        elif method == "Network.loadingFailed":
            frame = self._request_frames.get(str(params.get("requestId")), self.frame)
            self.scripts.loading_failed(params, frame, self._load_error)
        elif method == "Log.entryAdded":
            entry = params.get("entry")
            if isinstance(entry, dict):
                self.scripts.log_entry(entry, self.frame, self._load_error)
        elif method == "Page.loadEventFired":
            self.loaded = True
        elif method == "Inspector.targetCrashed":
            self.crashed = True

    def _binding(self, payload: Any) -> None:
        try:
            message = json.loads(payload) if isinstance(payload, str) else None
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        kind = message.get("kind")
        if kind == "frame" and isinstance(message.get("frame"), int):
            self.frame = message["frame"]
        elif kind == "done":
            self.done = True
        elif kind == "script-error":
            src = message.get("src")
            self.scripts.element_failed(src if isinstance(src, str) else "", self.frame)
        elif kind == "console":
            text, stack = message.get("text"), message.get("stack")
            self._console(
                str(message.get("level")),
                text if isinstance(text, str) else "",
                stack if isinstance(stack, str) else None,
            )

    def _console(self, level: str, text: str, stack: str | None) -> None:
        if level in ("log", "info"):
            self.log_count += 1
            if len(self.log_lines) < LOG_LINES:
                self.log_lines.append(f"[frame {self.frame}] {text}")
        elif level == "warn":
            if text.startswith(_DROPPED_WARNINGS):
                return
            pending = _PENDING.match(text)
            if pending:
                self.warn(
                    "W_SMOKE_PENDING_COMPONENT",
                    f'{pending[1]} on node "{pending[2]}" is not registered — it never runs.',
                )
            elif text.startswith(_LOADER_PREFIXES):
                self.warn("W_SMOKE_LOADER", text)
            else:
                self.warn("W_SMOKE_CONSOLE_WARN", text)
        elif level == "error":
            threw = _SCRIPT_THREW.match(text)
            if threw:
                self.error("E_SMOKE_SCRIPT", threw[3] or text, phase=_phase(threw[2]), script=threw[1], stack=stack)
            elif text.startswith(_TICK_THREW):
                self.error("E_SMOKE_TICK", text, stack=stack)
            elif text.startswith(_COMMAND_THREW):
                self.error("E_SMOKE_COMMAND", text, stack=stack)
            else:
                self.error("E_SMOKE_CONSOLE_ERROR", text, stack=stack)

    def _exception(self, details: dict[str, Any]) -> None:
        message = exception_message(details)
        stack = exception_stack(details)
        text = details.get("text")
        if isinstance(text, str) and text.startswith("Uncaught (in promise)"):
            entry = self.error("E_SMOKE_UNHANDLED", message, phase="promise", stack=stack)
        else:
            entry = self.error("E_SMOKE_SCRIPT", message, stack=stack)
        ident = details.get("exceptionId")
        if isinstance(ident, int):
            self._by_exception[ident] = entry

    def _response(self, params: dict[str, Any]) -> None:
        response = params.get("response") or {}
        status = response.get("status")
        url = response.get("url")
        if not isinstance(status, int) or not isinstance(url, str):
            return
        kind = str(params.get("type") or "Other")
        if kind == "Script":
            mime = response.get("mimeType")
            self.scripts.answered(url, status, mime if isinstance(mime, str) else "")
        if status < 400:
            return
        frame = self._request_frames.pop(str(params.get("requestId")), self.frame)
        if kind == "Document" and params.get("frameId") == self.document_frame:
            self.error(
                "E_SMOKE_LOAD",
                f"the game page {url} answered HTTP {status}; it needs an index.html that starts the game.",
            )
            self.load_failed = True
            return
        path = self.project_path(url)
        if kind == "Script":
            self.scripts.http_error(url, status, frame, self._load_error)
            return
        if path is None or (kind == "Other" and path == "favicon.ico"):
            return
        what = f"the page's {kind.lower()} request got HTTP {status}"
        if status in (404, 410):
            self.warn("W_SMOKE_MISSING_RESOURCE", f"res://{path} does not exist ({what}).", frame=frame)
        else:
            self.warn("W_SMOKE_MISSING_RESOURCE", f"res://{path} could not be loaded ({what}).", frame=frame)

    def _load_error(self, code: str, message: str, frame: int) -> dict[str, Any]:
        return self.error(code, message, frame=frame)

    def _script_name(self, url: str) -> str:
        path = self.project_path(url)
        return f"res://{path}" if path is not None else url

    def finish(self, page: dict[str, Any] | None) -> None:
        """The run's end: scripts that did not run and nothing explained, a page without any
        script, a game that never asked for a frame (``page``: what the page script counted)."""
        self.scripts.finish(self.page_url, self._load_error)
        if page is None or not self.loaded or self.load_failed:
            return
        scripts, callbacks = page.get("scripts"), page.get("callbackFrames")
        if scripts == 0:
            self.error(
                "E_SMOKE_LOAD",
                f"the game page {self.page_url} has no script, so no game code ran;"
                ' it needs an index.html that starts the game (<script type="module" src="…">).',
                frame=0,
            )
        elif callbacks == 0 and self.frame >= 1 and not self.scripts.failed:
            self.warn(
                "W_SMOKE_NO_FRAMES",
                f"the game never asked for an animation frame: no requestAnimationFrame callback ran in"
                f" {self.frame} frame{'s' if self.frame != 1 else ''}, so the run saw the page load and no game loop.",
            )

    def project_path(self, url: str) -> str | None:
        """The project path of a URL the dev server serves from the project folder, else None."""
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" != self.origin:
            return None
        path = unquote(parts.path).lstrip("/")
        if not path or path.startswith(_NOT_PROJECT):
            return None
        return path

    def first_frame_ok(self) -> bool:
        started = self.loaded and not self.load_failed
        enough = self.frame >= min(1, self.frames_requested)
        return started and enough and not any(e["frame"] <= 1 for e in self.errors)
