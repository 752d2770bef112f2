"""Did the game page's scripts run? (docs/smoke.md, "Scripts that did not run").

Sans-IO, fed by the :class:`~pix3net.smoke._collect.Collector`. A page whose entry script never
ran has no game, so the run must not be green. Four witnesses, each seeing what the others miss:

- ``Network.responseReceived``: a script request answered ≥ 400 (its URL and status);
- ``Network.loadingFailed``: a script request that got no answer (refused connection, blocked);
- ``Log.entryAdded``: the browser refusing a script for its media type (a module served as
  ``text/plain``: TypeScript without Vite) — the only place that names the refused module when it
  is one the entry imports;
- the page script's capturing ``error`` listener: a ``<script>`` element that did not run, for
  whatever reason (reported through the binding as ``script-error``).

Each failing URL is reported once (``E_SMOKE_LOAD``). An element's failure is explained by a
failure already seen (the element's own URL, or a module it imports); only an unexplained one
becomes a finding of its own, when the run ends (:meth:`ScriptLoads.finish`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["COMPILED_SOURCE", "ScriptLoads", "compile_advice", "is_javascript_type"]

# Script source a browser cannot run as it is (the dev server's media types say the same).
COMPILED_SOURCE = (".ts", ".tsx", ".mts", ".cts", ".jsx")
_JAVASCRIPT_TYPES = frozenset(
    {"text/javascript", "application/javascript", "application/x-javascript", "text/ecmascript", "application/wasm"}
)
# Chrome's console text for a refused script names the type it got, in one of two spellings.
_REFUSED_TYPE = re.compile(r"""MIME type (?:of )?\(?["']([^"']*)["']""")
DEFAULT_ADVICE = "TypeScript needs the project's Vite: run npm install in the project"

# (code, message, frame) → the recorded error entry
Report = Callable[[str, str, int], dict[str, Any]]


def is_javascript_type(mime: str) -> bool:
    return mime.split(";", 1)[0].strip().lower() in _JAVASCRIPT_TYPES


def compile_advice(root: Path, vite: Path | None, base_url: str) -> str:
    """What to do when the page's TypeScript reached the browser uncompiled (no clause ending)."""
    if vite is None:
        return (
            f"TypeScript needs the project's Vite and there is none (no node_modules/vite in {root} or above):"
            f" run npm install in {root} (while the Pix3 2.0 packages are unpublished that fails,"
            " and the project's README.md says how to link them instead)"
        )
    return (
        f"the dev server at {base_url} serves the project folder without Vite although {vite} is installed:"
        " restart it (stop pix3 editor and start it again)"
    )


@dataclass
class _Response:
    status: int
    mime: str


@dataclass
class ScriptLoads:
    """The scripts the page asked for, and which of them failed."""

    name: Callable[[str], str]  # a URL as the report names it (res://… for a project file)
    advice: str = DEFAULT_ADVICE
    failed: dict[str, dict[str, Any]] = field(default_factory=dict)  # URL → its E_SMOKE_LOAD
    _requests: dict[str, tuple[str, str]] = field(default_factory=dict)  # request id → (URL, type)
    _responses: dict[str, _Response] = field(default_factory=dict)  # script URL → its answer
    _elements: list[tuple[str, int]] = field(default_factory=list)  # (src or "", frame)

    def requested(self, request_id: str, url: str, kind: str) -> None:
        self._requests[request_id] = (url, kind)

    def answered(self, url: str, status: int, mime: str) -> None:
        self._responses[url] = _Response(status, mime)

    def http_error(self, url: str, status: int, frame: int, report: Report) -> None:
        if url not in self.failed:
            message = f"the page's script {self.name(url)} did not load (HTTP {status})."
            self.failed[url] = report("E_SMOKE_LOAD", message, frame)

    def loading_failed(self, params: dict[str, Any], frame: int, report: Report) -> None:
        """``Network.loadingFailed`` of a script: no answer at all (a cancel after an answer ≥ 400
        is Chrome dropping the body, not a failure of its own)."""
        url, kind = self._requests.get(str(params.get("requestId")), ("", ""))
        if kind != "Script" or not url or url in self.failed:
            return
        if params.get("canceled") and not params.get("blockedReason"):
            return
        why = params.get("blockedReason") or params.get("errorText") or "no answer"
        self.failed[url] = report("E_SMOKE_LOAD", f"the page's script {self.name(url)} did not load ({why}).", frame)

    def log_entry(self, entry: dict[str, Any], frame: int, report: Report) -> None:
        """A console entry of the browser's own: a script refused for its media type."""
        text, url = entry.get("text"), entry.get("url")
        if entry.get("level") != "error" or not isinstance(text, str) or not isinstance(url, str) or not url:
            return
        if "MIME type" not in text or "script" not in text.lower() or url in self.failed:
            return
        answer = self._responses.get(url)
        found = _REFUSED_TYPE.search(text)
        mime = answer.mime if answer is not None and answer.mime else (found[1] if found else "")
        self.failed[url] = report("E_SMOKE_LOAD", self.refused_message(url, mime), frame)

    def refused_message(self, url: str, mime: str) -> str:
        served = mime.split(";", 1)[0].strip() or "no type"
        path = url.split("?", 1)[0].split("#", 1)[0].lower()
        if path.endswith(COMPILED_SOURCE):
            language = "JSX" if path.endswith(".jsx") else "TypeScript"
            return (
                f"the page's script {self.name(url)} did not run: it is {language}, which a browser cannot run,"
                f" and the dev server sent it uncompiled ({served}); {self.advice}."
            )
        return (
            f"the page's script {self.name(url)} did not run: the browser runs a module only when it is"
            f" served as JavaScript, and the dev server sent {served}."
        )

    def element_failed(self, src: str, frame: int) -> None:
        self._elements.append((src, frame))

    def finish(self, page_url: str, report: Report) -> None:
        """An element that did not run and that no failure seen explains becomes one now."""
        element_urls = {src for src, _ in self._elements}
        imported_failed = any(url not in element_urls for url in self.failed)
        for src, frame in self._elements:
            if src in self.failed or imported_failed:
                continue
            answer = self._responses.get(src)
            if src and answer is not None and answer.status < 400 and not is_javascript_type(answer.mime):
                message = self.refused_message(src, answer.mime)
            elif src:
                message = (
                    f"the page's script {self.name(src)} did not run: the browser could not load it"
                    " or a module it imports."
                )
            else:
                message = (
                    f"an inline script of the game page {page_url} did not run: the browser could not load"
                    " a module it imports."
                )
            self.failed[src or page_url] = report("E_SMOKE_LOAD", message, frame)
