"""One CDP connection for `pix3 smoke`: calls by id, events by session (docs/smoke.md, "The browser").

The same code speaks to a private Chrome over its pipe and to a running owner through the token
proxy: both carry CDP text messages, and a proxy client's root session looks session-less, like
the pipe's. :meth:`Connection.run` is the one reader; it never waits on a consumer (event
channels are unbounded: a run is short, and the page reports a few messages per frame).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import trio

from pix3net.chrome.pipe import PipeChannel

if TYPE_CHECKING:
    from pix3net.cdp.client import WsClient

__all__ = ["CdpError", "Connection", "Gone", "PipeTransport", "Transport", "WsTransport"]


class Gone(Exception):
    """Chrome (or the proxy in front of it) went away; the message says how."""


class CdpError(Exception):
    """Chrome answered a call with an error: ``<method>: <message>``."""


class Transport(Protocol):
    async def send(self, text: str) -> None: ...

    async def receive(self) -> str:
        """The next message; raises :class:`Gone` when the other side has ended."""
        ...

    async def aclose(self) -> None: ...


class PipeTransport:
    """Chrome's own pipe (a private Chrome)."""

    def __init__(self, channel: PipeChannel) -> None:
        self._channel = channel

    async def send(self, text: str) -> None:
        await self._channel.send(text.encode())

    async def receive(self) -> str:
        try:
            raw = await self._channel.receive()
        except trio.EndOfChannel:
            raise Gone("Chrome closed its pipe") from None
        return raw.decode("utf-8", "replace")

    async def aclose(self) -> None:
        await self._channel.close()


class WsTransport:
    """A browser client of the token proxy (a reused Chrome owner). Sends are serialised: the page
    of the next scene is made ready while a scene runs, and both send on this one socket (trio
    refuses two tasks sending on one stream at once)."""

    def __init__(self, client: WsClient) -> None:
        self._client = client
        self._sending = trio.Lock()

    async def send(self, text: str) -> None:
        try:
            async with self._sending:
                await self._client.send(text)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise Gone(f"the proxy connection broke ({exc})") from None

    async def receive(self) -> str:
        from pix3net.cdp.client import Closed

        try:
            return await self._client.receive()
        except Closed as closed:
            why = f"{closed.code} {closed.reason}".strip()
            raise Gone(f"the proxy closed the connection ({why})") from None

    async def aclose(self) -> None:
        await self._client.aclose()


class Connection:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self._ids = itertools.count(1)
        self._waiting: dict[int, tuple[trio.Event, list[dict[str, Any]]]] = {}
        self._sessions: dict[str, trio.MemorySendChannel[tuple[str, dict[str, Any]]]] = {}
        self.gone: str | None = None
        self.ended = trio.Event()

    async def run(self) -> None:
        """Read until the transport ends; then every waiting call and session channel ends too."""
        try:
            while True:
                text = await self._transport.receive()
                try:
                    message = json.loads(text)
                except ValueError:
                    continue
                if isinstance(message, dict):
                    self._dispatch(message)
        except Gone as gone:
            self.gone = str(gone)
        finally:
            if self.gone is None:
                self.gone = "the connection to Chrome was closed"
            self.ended.set()
            for event, _ in self._waiting.values():
                event.set()
            for channel in self._sessions.values():
                channel.close()
            self._sessions.clear()

    def _dispatch(self, message: dict[str, Any]) -> None:
        ident = message.get("id")
        if isinstance(ident, int) and "method" not in message:
            waiting = self._waiting.get(ident)
            if waiting is not None:
                waiting[1].append(message)
                waiting[0].set()
            return
        method = message.get("method")
        session = message.get("sessionId")
        if isinstance(method, str) and isinstance(session, str):
            channel = self._sessions.get(session)
            if channel is not None:
                params = message.get("params")
                channel.send_nowait((method, params if isinstance(params, dict) else {}))

    def listen(self, session: str) -> trio.MemoryReceiveChannel[tuple[str, dict[str, Any]]]:
        """The events of one session, in Chrome's order, until :meth:`forget` or the end."""
        send, receive = trio.open_memory_channel[tuple[str, dict[str, Any]]](math.inf)
        if self.ended.is_set():
            send.close()
        else:
            self._sessions[session] = send
        return receive

    def forget(self, session: str) -> None:
        channel = self._sessions.pop(session, None)
        if channel is not None:
            channel.close()

    async def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> None:
        """A call whose answer nobody waits for (``Runtime.terminateExecution`` on a stuck page)."""
        await self._send(next(self._ids), method, params, session)

    async def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        """The call's ``result``; raises :class:`CdpError` or :class:`Gone`."""
        [result] = await self.call_many([(method, params or {})], session)
        return result

    async def call_many(self, calls: Sequence[tuple[str, dict[str, Any]]], session: str | None = None) -> list[Any]:
        """Send every call in order without waiting, then collect their results: one round trip
        for a batch (Chrome answers in order). Raises on the first error, as :meth:`call` does."""
        if self.gone is not None:
            raise Gone(self.gone)
        pending: list[tuple[str, int, trio.Event, list[dict[str, Any]]]] = []
        try:
            for method, params in calls:
                ident = next(self._ids)
                event = trio.Event()
                box: list[dict[str, Any]] = []
                self._waiting[ident] = (event, box)
                pending.append((method, ident, event, box))
                await self._send(ident, method, params, session)
            results = []
            for method, _, event, box in pending:
                await event.wait()
                if not box:
                    raise Gone(self.gone or "the connection to Chrome was closed")
                error = box[0].get("error")
                if error is not None:
                    text = error.get("message") if isinstance(error, dict) else None
                    raise CdpError(f"{method}: {text if isinstance(text, str) else json.dumps(error)}")
                results.append(box[0].get("result", {}))
            return results
        finally:
            for _, ident, _, _ in pending:
                self._waiting.pop(ident, None)

    async def _send(self, ident: int, method: str, params: dict[str, Any] | None, session: str | None) -> None:
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        await self._transport.send(json.dumps(message))

    async def aclose(self) -> None:
        await self._transport.aclose()
