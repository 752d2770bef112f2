"""The CDP client (``pix3net.clients.cdp``) over a trio stream, for what already runs trio: `pix3
smoke` on a reused owner, ``clients.port``'s one call, the tests and benches.

- :class:`WsClient`: one WebSocket to the proxy. A refused upgrade is an answer pix3 expects (401
  from a proxy that does not know the token): :class:`Rejected`, and the socket is always closed.
- :class:`Connection`: calls by id, events by session, over any :class:`Transport` (the proxy
  through :class:`WsTransport`, or a private Chrome's pipe: both carry CDP text messages, and a
  proxy client's root session looks session-less, like the pipe's). :meth:`Connection.run` is the
  one reader; it never waits on a consumer (event channels are unbounded: a run is short, and a
  page reports a few messages per frame).
- :func:`call`: one call on a connection of its own.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Protocol

import trio

from pix3net.clients.cdp import (
    CALL_SECONDS,
    CallError,
    Closed,
    FrameReader,
    Handshake,
    NotWebSocket,
    Rejected,
    bearer,
    call_message,
    call_text,
    encode_frame,
    is_reply,
    result_of,
)
from pix3net.wire.websocket import OP_BINARY, OP_TEXT

__all__ = [
    "CallError",
    "CdpError",
    "Closed",
    "Connection",
    "Gone",
    "NotWebSocket",
    "Rejected",
    "Transport",
    "WsClient",
    "WsTransport",
    "call",
]

_RECEIVE_BYTES = 256 * 1024


class WsClient:
    """One WebSocket client of the proxy (no bound on a message: a screenshot can be hundreds of
    MiB)."""

    def __init__(self, stream: trio.SocketStream, first: bytes) -> None:
        self._stream = stream
        self._reader = FrameReader(bound=None)
        self._messages = self._reader.feed(first) if first else []

    @property
    def closed(self) -> Closed | None:
        return self._reader.closed

    @classmethod
    async def connect(cls, port: int, path: str, headers: list[tuple[str, str]]) -> WsClient:
        """Open ``path`` on the proxy with ``headers`` (the token: ``clients.cdp.bearer``).
        Raises :class:`Rejected`, :class:`Closed` (1006) or :class:`NotWebSocket`."""
        handshake = Handshake(port, path, headers)
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        try:
            await stream.send_all(handshake.request)
            while (first := handshake.feed(await stream.receive_some(_RECEIVE_BYTES))) is None:
                pass
        except BaseException:
            await stream.aclose()
            raise
        return cls(stream, first)

    async def send(self, text: str) -> None:
        await self._stream.send_all(encode_frame(OP_TEXT, text.encode()))

    async def send_binary(self, data: bytes) -> None:
        await self._stream.send_all(encode_frame(OP_BINARY, data))

    @property
    def stream(self) -> trio.SocketStream:
        """The raw socket (tests write broken frames on it)."""
        return self._stream

    async def receive(self) -> str:
        """The next message; raises :class:`Closed` once the connection has ended."""
        reader = self._reader
        while not self._messages:
            if reader.replies:
                replies = bytes(reader.replies)
                reader.replies.clear()
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await self._stream.send_all(replies)
            if reader.closed is not None:
                raise reader.closed
            try:
                data = await self._stream.receive_some(_RECEIVE_BYTES)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                data = b""
            self._messages = reader.feed(data)
        return self._messages.pop(0)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> WsClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        with trio.CancelScope(shield=True):
            await self.aclose()


async def call(
    port: int,
    token: str,
    method: str,
    params: dict[str, Any] | None = None,
    timeout: float = CALL_SECONDS,  # noqa: ASYNC109 - the call's limit (5 s)
    *,
    path: str = "/pix3",
) -> Any:
    """One CDP call through the proxy on a connection of its own: its ``result``. Browser-level
    on ``/pix3``; ``path="/pix3/page/<targetId>"`` makes it a call on that page. Raises
    :class:`CallError` ``<method>: <error.message>`` or ``<method>: no answer within 5000 ms``."""
    reply: dict[str, Any] = {}
    with trio.move_on_after(timeout) as scope:
        try:
            async with await WsClient.connect(port, path, [bearer(token)]) as ws:
                await ws.send(call_message(1, method, params))
                while not is_reply(reply := json.loads(await ws.receive()), 1):
                    pass
        except Rejected as error:
            raise CallError(f"{method}: {error.text()}") from None
        except Closed as error:
            raise CallError(f"{method}: {error.text()}") from None
        except (NotWebSocket, OSError, ValueError) as error:
            raise CallError(f"{method}: {error}") from None
    if scope.cancelled_caught:
        raise CallError(f"{method}: no answer within {int(timeout * 1000)} ms")
    return result_of(method, reply)


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
        try:
            return await self._client.receive()
        except Closed as closed:
            why = f"{closed.code} {closed.reason}".strip()
            raise Gone(f"the proxy closed the connection ({why})") from None

    async def aclose(self) -> None:
        await self._client.aclose()


class Connection:
    """One CDP connection: calls by id, events by session, read by :meth:`run`."""

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
        await self._transport.send(call_message(next(self._ids), method, params, session))

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
                await self._transport.send(call_message(ident, method, params, session))
            results = []
            for method, _, event, box in pending:
                await event.wait()
                if not box:
                    raise Gone(self.gone or "the connection to Chrome was closed")
                error = box[0].get("error")
                if error is not None:
                    raise CdpError(call_text(method, error))
                results.append(box[0].get("result", {}))
            return results
        finally:
            for _, ident, _, _ in pending:
                self._waiting.pop(ident, None)

    async def aclose(self) -> None:
        await self._transport.aclose()
