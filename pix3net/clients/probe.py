"""Loopback HTTP probes of pix3's two daemons, on a plain socket: no trio, no httpx, no http.client.

`pix3 editor` with everything running is one ``hello`` to the dev server and one proof of the
proxy (a challenge without the token), then — only once the proof holds — its version and tabs
with the token, on the same connection. Importing an HTTP stack for that costs more than the
whole exchange (trio + httpx ≈ 6× Python's own start; docs/editor.md, "Cold start and reuse"),
so the few requests are written here and their answers read with pix3's one head parser
(``pix3net.wire.httphead``); the Remote SSH checks (the forward-scope proof)
use the same. Only plain ``http://`` to a daemon of ours; an ``https`` dev server is asked
through ``http.client``. The token is sent only to a port that proved it knows it.

Hostile answers are bounded: a head over 64 KiB or a body over 16 MiB ends the probe.
"""

from __future__ import annotations

import errno
import json
import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from pix3net.daemon.pids import port_holder
from pix3net.wire.httphead import answer_head
from pix3net.wire.proof import Verdict, challenge_headers, classify, new_challenge, page_urls

MAX_HEAD = 64 * 1024  # a daemon's answer head is a few hundred bytes
MAX_BODY = 16 * 1024 * 1024  # /json/list of a Chrome with hundreds of tabs stays far below
READ = 65536
PROBE_SECONDS = 1.5  # the proxy probe's limit (docs/cdp-proxy.md)
HELLO_SECONDS = 2.0  # the dev server probe's limit (docs/editor.md)
_NO_BODY = frozenset({204, 304})


class ProbeError(Exception):
    """The answer is not HTTP we can read (or is too large)."""


class _Unanswered(ProbeError):
    """The connection closed before the first byte of an answer."""


class Answer:
    __slots__ = ("body", "close", "headers", "status")

    def __init__(self, status: int, headers: dict[str, str], body: bytes, close: bool) -> None:
        self.status, self.headers, self.body, self.close = status, headers, body, close

    def json(self) -> Any:
        """The parsed body of a 2xx answer, else None."""
        if not 200 <= self.status < 300:
            return None
        try:
            return json.loads(self.body)
        except ValueError:
            return None


class Connection:
    """Keep-alive GETs to one loopback server; reconnects when the server closed the last one."""

    def __init__(self, host: str, port: int, timeout: float) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self._sock: socket.socket | None = None
        self._buffer = b""

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def detach(self) -> tuple[socket.socket, bytes]:
        """The socket and the bytes read past the last answer (after a 101: the first frames)."""
        if self._sock is None:
            raise ProbeError("no connection to detach")
        sock, data = self._sock, self._buffer
        self._sock, self._buffer = None, b""
        return sock, data

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._buffer = b""

    def post(self, path: str, headers: dict[str, str] | None = None) -> Answer:
        """One POST without a body (an action the path names); raises as :meth:`get`. Never
        retried: the server may have acted on it."""
        return self._get(path, {**(headers or {}), "Content-Length": "0"}, "POST")

    def get(self, path: str, headers: dict[str, str] | None = None) -> Answer:
        """One GET; raises ``OSError`` (nothing listens, timeout, reset) or :class:`ProbeError`.

        A kept-alive connection the server closed while idle is retried once on a new one (a GET
        that got no byte of answer was not answered)."""
        if self._sock is not None:
            try:
                return self._get(path, headers)
            except (_Unanswered, ConnectionError):
                self.close()
        try:
            return self._get(path, headers)
        except _Unanswered as exc:
            raise ProbeError(str(exc)) from None

    def _get(self, path: str, headers: dict[str, str] | None, method: str = "GET") -> Answer:
        if self._sock is None:
            self._sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        host = f"[{self.host}]" if ":" in self.host else self.host
        lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{self.port}", "Accept: application/json"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        self._sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        answer = self._read_answer()
        if answer.close:
            self.close()
        return answer

    def _fill(self) -> bool:
        assert self._sock is not None
        chunk = self._sock.recv(READ)
        self._buffer += chunk
        return bool(chunk)

    def _read_answer(self) -> Answer:
        while (end := self._buffer.find(b"\r\n\r\n")) < 0:
            if len(self._buffer) > MAX_HEAD:
                raise ProbeError("answer head too large")
            if not self._fill():
                raise (_Unanswered if not self._buffer else ProbeError)("connection closed before an answer")
        parsed = answer_head(self._buffer, end + 4)
        if parsed is None:
            first = self._buffer[: self._buffer.find(b"\r\n")].decode("latin-1")
            raise ProbeError(f"not an HTTP answer: {first[:80]!r}")
        status, version, headers = parsed
        self._buffer = self._buffer[end + 4 :]
        close = "close" in headers.get("connection", "").lower() or version == "HTTP/1.0"
        if status in _NO_BODY or 100 <= status < 200:
            return Answer(status, headers, b"", close)
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return Answer(status, headers, self._chunked(), close)
        length = headers.get("content-length")
        if length is None:
            while self._fill():  # the body runs to the end of the connection
                if len(self._buffer) > MAX_BODY:
                    raise ProbeError("answer body too large")
            body, self._buffer = self._buffer, b""
            return Answer(status, headers, body, True)
        if not length.isdigit() or int(length) > MAX_BODY:
            raise ProbeError(f"bad Content-Length {length[:20]!r}")
        return Answer(status, headers, self._exactly(int(length)), close)

    def _exactly(self, size: int) -> bytes:
        while len(self._buffer) < size:
            if not self._fill():
                raise ProbeError("connection closed inside the body")
        body, self._buffer = self._buffer[:size], self._buffer[size:]
        return body

    def _line(self) -> bytes:
        while (end := self._buffer.find(b"\r\n")) < 0:
            if len(self._buffer) > MAX_HEAD or not self._fill():
                raise ProbeError("bad chunked framing")
        line, self._buffer = self._buffer[:end], self._buffer[end + 2 :]
        return line

    def _chunked(self) -> bytes:
        body = b""
        while True:
            try:
                size = int(self._line().split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise ProbeError("bad chunk size") from None
            if size == 0:
                while self._line():  # trailer fields, up to the empty line
                    pass
                return body
            if size < 0 or len(body) + size > MAX_BODY:
                raise ProbeError("bad chunk size")
            body += self._exactly(size)
            if self._line():
                raise ProbeError("bad chunk end")


def hello(url: str, timeout: float = HELLO_SECONDS) -> bool:
    """``GET <url>__pix3/api/hello`` answers 2xx within ``timeout`` (the body is not read as JSON)."""
    target = urlsplit(url + ("" if url.endswith("/") else "/") + "__pix3/api/hello")
    if not target.hostname:
        return False
    if target.scheme == "https":
        return _hello_https(target.hostname, target.port or 443, target.path, timeout)
    if target.scheme != "http":
        return False
    try:
        with Connection(target.hostname, target.port or 80, timeout) as conn:
            return 200 <= conn.get(target.path).status < 300
    except (OSError, ProbeError, ValueError):
        return False


def _hello_https(host: str, port: int, path: str, timeout: float) -> bool:
    import http.client

    conn = http.client.HTTPSConnection(host, port, timeout=timeout)
    try:
        conn.request("GET", path)
        return 200 <= conn.getresponse().status < 300
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


class Ours:
    """What a proxy that proved it knows our token says about itself."""

    __slots__ = ("browser", "pages", "user_agent")

    def __init__(self, browser: str, user_agent: str, pages: list[str]) -> None:
        self.browser, self.user_agent, self.pages = browser, user_agent, pages

    @property
    def headless(self) -> bool:
        return "HeadlessChrome" in self.user_agent


def proved(
    port: int, token: str, timeout: float = PROBE_SECONDS, *, holder: Callable[[int], str] | None = None
) -> tuple[Connection, Verdict]:
    """A kept-alive connection to the proxy on ``port`` and the verdict of its proof of ``token``
    (one fresh challenge, never the token). The token may go on that connection only when the
    verdict is ``ours`` (``auth(token)``); the caller closes it. Raises ``OSError`` or
    :class:`ProbeError` when nothing answers HTTP. ``holder`` names who holds the port in the
    verdict's detail."""
    challenge = new_challenge()
    conn = Connection("127.0.0.1", port, timeout)
    try:
        answer = conn.get("/json/version", challenge_headers(challenge))
    except BaseException:
        conn.close()
        raise
    verdict = classify(answer.status, answer.headers, port=port, token=token, challenge=challenge, holder=holder)
    return conn, verdict


def auth(token: str) -> dict[str, str]:
    """The header that carries the token (only to a port that proved it knows it)."""
    return {"Authorization": f"Bearer {token}"}


def ours(port: int, token: str, timeout: float = PROBE_SECONDS) -> Ours | None:
    """The proxy on ``port`` proves it knows ``token``: its browser, user agent and tabs. None when
    nothing answers or the answer has no valid proof — the token is then never sent."""
    try:
        conn, verdict = proved(port, token, timeout)
        with conn:
            if verdict.kind != "ours":
                return None
            version = conn.get("/json/version", auth(token)).json()
            listed = conn.get("/json/list", auth(token)).json()
    except (OSError, ProbeError):
        return None
    version = version if isinstance(version, dict) else {}
    browser = str(version.get("Browser") or "unknown browser")
    return Ours(browser, str(version.get("User-Agent") or ""), page_urls(listed))


def challenge(
    port: int, token: str | None, *, forward: bool = False, timeout: float = PROBE_SECONDS, also: tuple[int, ...] = ()
) -> tuple[Answer, Verdict]:
    """One proof request to ``port`` (a fresh challenge, never the token) and its verdict: what
    :func:`prove` and ``clients.port``'s inspection ask. ``also``: where our proxy may be besides
    the CDP range (the recorded port), to name it when the port dialled relays to it. Raises
    ``OSError`` or :class:`ProbeError` when nothing answers HTTP."""
    sent = new_challenge()
    with Connection("127.0.0.1", port, timeout) as conn:
        answer = conn.get("/json/version", challenge_headers(sent, forward=forward))
    verdict = classify(
        answer.status,
        answer.headers,
        port=port,
        token=token,
        challenge=sent,
        forward=forward,
        also=also,
        holder=port_holder,
    )
    return answer, verdict


def prove(
    port: int, token: str, *, forward: bool = False, timeout: float = PROBE_SECONDS, also: tuple[int, ...] = ()
) -> tuple[str, str]:
    """``(kind, detail)``: ``ours`` (the proof of ``token`` holds for the port dialled, in the port
    or the forward scope), ``closed`` (nothing answers HTTP, or it is not HTTP) or ``foreign`` with
    what answered and who holds the port (docs/cdp-proxy.md, Proof)."""
    try:
        _, verdict = challenge(port, token, forward=forward, timeout=timeout, also=also)
    except (OSError, ProbeError):
        return "closed", ""
    return verdict.kind, verdict.detail


def proves(port: int, token: str, timeout: float = PROBE_SECONDS) -> bool:
    """Does the proxy on ``port`` answer with the port-scope proof of ``token`` for that port?"""
    return prove(port, token, timeout=timeout)[0] == "ours"


def squatted(port: int) -> str:
    """For a port that gave no HTTP answer (``prove`` said ``closed``): "" when nothing listens
    there, else the sentence naming what holds it — a listener that does not speak HTTP, or
    never answers, must not be taken for a free port where the token may go later."""
    if refused(port):
        return ""
    who = port_holder(port)
    return f"port {port} is in use by something that does not answer as a Pix3 CDP proxy{f' ({who})' if who else ''}"


def refused(port: int) -> bool:
    """Nothing listens on ``127.0.0.1:port`` (the connection is refused at once)."""
    with socket.socket() as sock:
        sock.settimeout(PROBE_SECONDS)
        try:
            return sock.connect_ex(("127.0.0.1", port)) == errno.ECONNREFUSED
        except OSError:
            return False


def targets(port: int, token: str, timeout: float = PROBE_SECONDS) -> list[dict[str, Any]]:
    """The proxy's ``/json/list`` with the token — only for a port that proved it is ours."""
    try:
        with Connection("127.0.0.1", port, timeout) as conn:
            listed = conn.get("/json/list", auth(token)).json()
    except (OSError, ProbeError):
        return []
    return [t for t in listed if isinstance(t, dict)] if isinstance(listed, list) else []
