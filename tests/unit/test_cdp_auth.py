"""Origin → Host → Bearer (docs/cdp-proxy.md, "Auth") as pure checks over header lists."""

from __future__ import annotations

import json

import pytest

from pix3net.wire import auth
from pix3net.wire.auth import BEARER_MISSING, BEARER_WRONG, ORIGIN_REFUSED, AuthRefusal

TOKEN = "a" * 43
DIGEST = auth.token_digest(TOKEN)
GOOD = [("host", "127.0.0.1:9333"), ("authorization", f"Bearer {TOKEN}")]


def check(*headers: tuple[str, str]) -> AuthRefusal | None:
    return auth.check_request(list(headers), DIGEST)


def test_good_request_passes() -> None:
    assert check(*GOOD) is None


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "", "http://127.0.0.1:9333"])
def test_any_origin_is_refused_first(origin: str) -> None:
    assert check(("origin", origin), *GOOD) == AuthRefusal(403, ORIGIN_REFUSED)
    # Origin wins over a bad Host and a missing token: the order of docs/cdp-proxy.md, "Auth".
    assert check(("origin", origin), ("host", "evil.com")) == AuthRefusal(403, ORIGIN_REFUSED)


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1", "127.0.0.1:9333", "LOCALHOST:1", "localhost", "[::1]", "[::1]:9333", "127.0.0.2:9333", "127.255.0.9"],
)
def test_loopback_hosts_pass(host: str) -> None:
    assert check(("host", host), GOOD[1]) is None


@pytest.mark.parametrize(
    "host",
    [
        "evil.com",
        "evil.example:80",
        "localhost.evil.com",
        "127.0.0.1.nip.io",
        "127.0.0.1.nip.io:9333",
        "127.evil.example",
        "127.evil.example:9333",
        "127.1",
        "0x7f.0.0.1",
        "2130706433",
        "127.000.0.1",
        "127.0.0.256",
        "localhost.",
        "0.0.0.0",
        "[::2]",
        "[::1",
        "::1",
        "",
        " ",
        "127.0.0.1@evil.com",
    ],
)
def test_rebinding_hosts_are_refused(host: str) -> None:
    refusal = check(("host", host), GOOD[1])
    assert refusal == AuthRefusal(403, f'Host "{host.lower()}" is not a loopback address')


def test_missing_and_duplicated_host_are_refused() -> None:
    assert check(GOOD[1]) == AuthRefusal(403, 'Host "" is not a loopback address')
    duplicated = check(("host", "127.0.0.1"), ("host", "evil.com"), GOOD[1])
    assert duplicated == AuthRefusal(403, 'Host "127.0.0.1, evil.com" is not a loopback address')
    assert check(("host", "127.0.0.1"), ("host", "127.0.0.1"), GOOD[1]) is not None


def test_host_is_checked_before_the_token() -> None:
    assert check(("host", "evil.com")) == AuthRefusal(403, 'Host "evil.com" is not a loopback address')


@pytest.mark.parametrize(
    "value",
    [f"Bearer {TOKEN}", f"bearer {TOKEN}", f"BEARER\t{TOKEN}", f"Bearer   {TOKEN}  ", f"Bearer {TOKEN}\t"],
)
def test_bearer_spellings_that_match(value: str) -> None:
    assert check(GOOD[0], ("authorization", value)) is None


@pytest.mark.parametrize(
    "value",
    [
        TOKEN,
        f"Bearer{TOKEN}",
        "Bearer",
        "Bearer ",
        "",
        f"Basic {TOKEN}",
        f"Bearer {TOKEN} extra",
        f" Bearer {TOKEN}",
        f"Token {TOKEN}",
    ],
)
def test_bearer_spellings_that_are_missing(value: str) -> None:
    assert check(GOOD[0], ("authorization", value)) == AuthRefusal(401, BEARER_MISSING)


@pytest.mark.parametrize("token", ["nope", TOKEN[:-1], TOKEN + "a", "b" * 43, "é" * 43, TOKEN.upper()])
def test_wrong_token(token: str) -> None:
    assert check(GOOD[0], ("authorization", f"Bearer {token}")) == AuthRefusal(401, BEARER_WRONG)


def test_absent_and_duplicated_authorization() -> None:
    assert check(GOOD[0]) == AuthRefusal(401, BEARER_MISSING)
    assert check(GOOD[0], GOOD[1], GOOD[1]) == AuthRefusal(401, BEARER_MISSING)


def test_messages_never_echo_the_token() -> None:
    for refusal in [check(GOOD[0], ("authorization", f"Bearer {TOKEN}x")), check(GOOD[0], ("authorization", TOKEN))]:
        assert refusal is not None and TOKEN not in refusal.message


def test_http_answer_format() -> None:
    raw = auth.http_answer(401, {"error": BEARER_MISSING}, "P" * 43)
    head, body = raw.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    assert lines[0] == "HTTP/1.1 401 Unauthorized"
    assert "Content-Type: application/json; charset=UTF-8" in lines
    assert "X-Pix3-Cdp-Proxy: 1" in lines
    assert "X-Pix3-Proof: " + "P" * 43 in lines
    assert 'WWW-Authenticate: Bearer realm="pix3"' in lines
    assert f"Content-Length: {len(body)}" in lines
    assert body == b'{\n  "error": "missing \\"Authorization: Bearer <token>\\" (the token is in ~/.pix3/cdp-token)"\n}'
    assert json.loads(body) == {"error": BEARER_MISSING}


def test_no_realm_on_other_statuses_and_no_proof_without_challenge() -> None:
    for status in (200, 403, 404, 502):
        head = auth.http_answer(status, {}, None).split(b"\r\n\r\n")[0].decode()
        assert "WWW-Authenticate" not in head and "X-Pix3-Proof" not in head and "X-Pix3-Cdp-Proxy: 1" in head


@pytest.mark.parametrize(
    ("status", "line"),
    [
        (401, "401 Unauthorized"),
        (403, "403 Forbidden"),
        (404, "404 Not Found"),
        (502, "502 Bad Gateway"),
        (500, "502 Bad Gateway"),
    ],
)
def test_ws_refusal_format(status: int, line: str) -> None:
    raw = auth.ws_refusal(status, "nope é")
    body = "nope é".encode()
    assert (
        raw
        == (
            f"HTTP/1.1 {line}\r\nX-Pix3-Cdp-Proxy: 1\r\nContent-Type: text/plain\r\nConnection: close\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        + body
    )
