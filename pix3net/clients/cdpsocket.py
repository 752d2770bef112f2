"""The CDP client (``pix3net.clients.cdp``) over a plain blocking socket: what `pix3 editor` uses
to open or navigate its tab and to check that it answers, without trio or wsproto (their import
costs more than the call: docs/editor.md, "Cold start and reuse").

:class:`Session` keeps one connection for several calls (a page is attached once however often it
is asked); :func:`call` is one call on a connection of its own. Every failure is a
:class:`~pix3net.clients.cdp.CallError` ``<method>: <why>``.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any

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
    encode_frame,
    is_reply,
    result_of,
)
from pix3net.wire.websocket import OP_TEXT

__all__ = ["CALL_SECONDS", "CallError", "Session", "call", "open_session"]

READ = 65536


class Session:
    """One WebSocket client of the proxy on ``path`` (``/pix3`` the browser, ``/pix3/page/<id>`` a
    page; ``clients.cdp.proxy_path`` builds them)."""

    def __init__(self, port: int, token: str, path: str = "/pix3", *, timeout: float = CALL_SECONDS) -> None:
        self.timeout = timeout
        self._next = 0
        self._messages: list[str] = []
        handshake = Handshake(port, path, [bearer(token)])
        sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.sendall(handshake.request)
            while (rest := handshake.feed(sock.recv(READ))) is None:
                pass
        except Rejected as exc:
            sock.close()
            raise CallError(exc.text()) from None
        except (Closed, NotWebSocket) as exc:
            sock.close()
            raise CallError(exc.text() if isinstance(exc, Closed) else str(exc)) from None
        except BaseException:
            sock.close()
            raise
        self._sock = sock
        self._reader = FrameReader()
        if rest:  # frames that came with the 101
            self._messages += self._reader.feed(rest)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._sock.close()

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """``method``'s ``result``; raises :class:`CallError` ``<method>: <why>``."""
        self._next += 1
        deadline = time.monotonic() + self.timeout
        try:
            self._sock.settimeout(self.timeout)
            self._sock.sendall(encode_frame(OP_TEXT, call_message(self._next, method, params).encode()))
            reply = self._reply(deadline)
        except TimeoutError:
            raise CallError(f"{method}: no answer within {int(self.timeout * 1000)} ms") from None
        except Closed as closed:
            raise CallError(f"{method}: {closed.text()}") from None
        except (OSError, ValueError) as exc:
            raise CallError(f"{method}: {exc}") from None
        return result_of(method, reply)

    def _reply(self, deadline: float) -> dict[str, Any]:
        """Read messages until the reply to our id (events and other traffic are skipped)."""
        reader = self._reader
        while True:
            while self._messages:
                reply = json.loads(self._messages.pop(0))
                if is_reply(reply, self._next):
                    return reply  # type: ignore[no-any-return]
            if reader.replies:
                self._sock.sendall(reader.replies)
                reader.replies.clear()
            if reader.closed is not None:
                raise reader.closed
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self._sock.settimeout(left)
            self._messages += reader.feed(self._sock.recv(READ))


def open_session(port: int, token: str, path: str = "/pix3", *, timeout: float = CALL_SECONDS) -> Session:
    """A :class:`Session`; refusals and failures to connect are :class:`CallError` like a call's."""
    try:
        return Session(port, token, path, timeout=timeout)
    except TimeoutError:
        raise CallError(f"no answer within {int(timeout * 1000)} ms") from None
    except OSError as exc:
        raise CallError(str(exc)) from None


def call(
    port: int,
    token: str,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    path: str = "/pix3",
    timeout: float = CALL_SECONDS,
) -> Any:
    """One call on a connection of its own: ``method``'s ``result``. Raises :class:`CallError`
    ``<method>: <error.message>`` (or why it got none)."""
    try:
        session = open_session(port, token, path, timeout=timeout)
    except CallError as exc:
        raise CallError(f"{method}: {exc}") from None
    with session:
        return session.call(method, params)
