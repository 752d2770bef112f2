"""Challenge/proof, local and forward scope (docs/cdp-proxy.md, "Proof"): vectors computed with Node's crypto."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pix3net.cdp import proof

TOKEN = "a" * 43
CHALLENGE = "abcdefghijklmnop_-0123"
# node -e: createHmac("sha256", sha256(token)).update(challenge).digest("base64url")
NODE_LOCAL = "d2BwYWN93q1nZ4R4mOs1FDukeoTlBuaFqOPfMe2y5YY"
# node -e: hkdfSync("sha256", token, <empty salt>, "pix3 cdp proof forward v1", 32), then the HMAC
NODE_FORWARD_9333 = "thHn48UQ2Wmstqdm9vaacX9STtY6iHBwjQK1vaFgEAQ"


def test_local_proof_matches_the_reference() -> None:
    assert proof.local_proof(TOKEN, CHALLENGE) == NODE_LOCAL
    assert len(NODE_LOCAL) == 43


def test_forward_proof_matches_node_hkdf() -> None:
    assert proof.forward_proof(TOKEN, 9333, CHALLENGE) == NODE_FORWARD_9333
    assert proof.forward_proof(TOKEN, 9334, CHALLENGE) != NODE_FORWARD_9333
    assert proof.forward_proof(TOKEN, 9333, CHALLENGE) != proof.local_proof(TOKEN, CHALLENGE)


@pytest.mark.parametrize(
    ("challenge", "valid"),
    [
        ("a" * 16, True),
        ("a" * 128, True),
        ("a" * 15, False),
        ("a" * 129, False),
        ("a" * 20 + "=", False),
        ("a" * 20 + "\n", False),
        ("a" * 20 + " ", False),
        ("", False),
        ("é" * 20, False),
    ],
)
def test_challenge_shape(challenge: str, valid: bool) -> None:
    assert proof.is_valid_challenge(challenge) is valid
    answer = proof.answer_proof(TOKEN, challenge=challenge, scope=None, host="127.0.0.1:9333", forward_ports=None)
    assert (answer is not None) is valid


def test_new_challenge_is_32_chars_and_valid() -> None:
    first, second = proof.new_challenge(), proof.new_challenge()
    assert len(first) == 32 and proof.is_valid_challenge(first) and first != second


def test_answer_without_challenge_has_no_proof() -> None:
    assert proof.answer_proof(TOKEN, challenge=None, scope=None, host="127.0.0.1:1", forward_ports=None) is None


def test_forward_scope_only_for_listed_port_in_host() -> None:
    def answer(host: str | None, ports: frozenset[int] | None, scope: str | None = "forward") -> str | None:
        return proof.answer_proof(TOKEN, challenge=CHALLENGE, scope=scope, host=host, forward_ports=ports)

    assert answer("127.0.0.1:9333", frozenset({9333})) == NODE_FORWARD_9333
    assert answer("localhost:9333", frozenset({9333, 9334})) == NODE_FORWARD_9333
    assert answer("[::1]:9333", frozenset({9333})) == NODE_FORWARD_9333
    assert answer("127.0.0.1:9333", frozenset({9334})) is None  # unlisted
    assert answer("127.0.0.1:9333", None) is None  # no file
    assert answer("127.0.0.1", frozenset({9333})) is None  # no port in Host
    assert answer(None, frozenset({9333})) is None
    assert answer("127.0.0.1:9333", frozenset({9333}), scope="other") is None  # unknown scope
    assert answer("127.0.0.1:9333", frozenset({9333}), scope="FORWARD") == NODE_FORWARD_9333
    assert answer("127.0.0.1:9333", frozenset(), scope=None) == NODE_LOCAL


def test_relay_through_another_port_does_not_verify() -> None:
    # The proxy answers for the port in Host (9340, listed); the verifier dialled 9333.
    relayed = proof.answer_proof(
        TOKEN, challenge=CHALLENGE, scope="forward", host="127.0.0.1:9340", forward_ports=frozenset({9340})
    )
    assert relayed is not None
    assert not proof.verify_proof(TOKEN, CHALLENGE, relayed, forward_port=9333)
    assert proof.verify_proof(TOKEN, CHALLENGE, relayed, forward_port=9340)


def test_verify() -> None:
    assert proof.verify_proof(TOKEN, CHALLENGE, NODE_LOCAL)
    assert not proof.verify_proof("b" * 43, CHALLENGE, NODE_LOCAL)
    assert not proof.verify_proof(TOKEN, CHALLENGE, None)
    assert not proof.verify_proof(TOKEN, CHALLENGE, "x" * 43)
    assert not proof.verify_proof(TOKEN, CHALLENGE, NODE_LOCAL[:-1])
    assert not proof.verify_proof(TOKEN, CHALLENGE, CHALLENGE)  # a squatter echoing the challenge
    assert not proof.verify_proof(TOKEN, CHALLENGE, "é" * 43)
    assert proof.verify_proof(TOKEN, CHALLENGE, NODE_FORWARD_9333, forward_port=9333)
    assert not proof.verify_proof(TOKEN, CHALLENGE, NODE_LOCAL, forward_port=9333)


@given(st.text(min_size=1), st.from_regex(r"[A-Za-z0-9_-]{16,128}", fullmatch=True))
def test_proof_is_43_url_safe_chars(token: str, challenge: str) -> None:
    value = proof.local_proof(token, challenge)
    assert len(value) == 43 and proof.is_valid_challenge(value[:43])
    assert proof.verify_proof(token, challenge, value)


@pytest.mark.parametrize(
    ("host", "port"),
    [
        ("127.0.0.1:9333", 9333),
        ("[::1]:1", 1),
        ("localhost", None),
        ("x:0", None),
        ("x:65536", None),
        ("x:+1", None),
        ("[::1]", None),
        ("x:", None),
    ],
)
def test_host_port(host: str, port: int | None) -> None:
    assert proof.host_port(host) == port


def test_forward_ports_file(tmp_path: Path) -> None:
    assert proof.read_forward_ports(tmp_path) is None
    path = tmp_path / proof.FORWARD_PORTS_FILE
    path.write_text(json.dumps({"ports": [9333, "9334", True, 70000, 9335]}))
    assert proof.read_forward_ports(tmp_path) == frozenset({9333, 9335})
    path.write_text("not json")
    assert proof.read_forward_ports(tmp_path) is None
    path.write_text('{"ports": 9333}')
    assert proof.read_forward_ports(tmp_path) is None


PORT = 9333
MARKED = {"x-pix3-cdp-proxy": "1"}


@pytest.mark.parametrize(
    ("status", "headers", "token", "forward", "kind", "proxy", "detail"),
    [
        # nothing answered HTTP
        (None, {}, TOKEN, False, "closed", False, ""),
        # the proof of our token, on any status (the usual first answer is a 401)
        (401, {"x-pix3-proof": NODE_LOCAL, **MARKED}, TOKEN, False, "ours", False, ""),
        (200, {"x-pix3-proof": NODE_LOCAL}, TOKEN, False, "ours", False, ""),
        (502, {"x-pix3-proof": f"  {NODE_LOCAL} "}, TOKEN, False, "ours", False, ""),
        # the forward scope is checked for the port dialled; the local proof does not pass as one
        (401, {"x-pix3-proof": NODE_FORWARD_9333, **MARKED}, TOKEN, True, "ours", False, ""),
        (401, {"x-pix3-proof": NODE_LOCAL, **MARKED}, TOKEN, True, "foreign", True, "proxy"),
        (401, {"x-pix3-proof": NODE_FORWARD_9333, **MARKED}, TOKEN, False, "foreign", True, "proxy"),
        # another token's proof, a made-up one, none, or no token to check it with
        (
            401,
            {"x-pix3-proof": proof.local_proof("b" * 43, CHALLENGE), **MARKED},
            TOKEN,
            False,
            "foreign",
            True,
            "proxy",
        ),
        (401, {"x-pix3-proof": "x" * 43, **MARKED}, TOKEN, False, "foreign", True, "proxy"),
        (401, {"x-pix3-proof": NODE_LOCAL[:-1], **MARKED}, TOKEN, False, "foreign", True, "proxy"),
        (401, MARKED, TOKEN, False, "foreign", True, "proxy"),
        (401, {"x-pix3-proof": NODE_LOCAL, **MARKED}, None, False, "foreign", True, "proxy"),
        # not a Pix3 proxy: no marker (or another value)
        (200, {}, TOKEN, False, "foreign", False, "other"),
        (404, {"x-pix3-cdp-proxy": "yes"}, TOKEN, False, "foreign", False, "other"),
    ],
)
def test_classify(
    status: int | None,
    headers: dict[str, str],
    token: str | None,
    forward: bool,
    kind: str,
    proxy: bool,
    detail: str,
) -> None:
    verdict = proof.classify(status, headers, port=PORT, token=token, challenge=CHALLENGE, forward=forward)
    assert (verdict.kind, verdict.proxy) == (kind, proxy)
    expected = {
        "": "",
        "proxy": f"port {PORT} is a Pix3 CDP proxy that does not know this token (HTTP {status}): "
        "another user's, or one started with another PIX3_HOME",
        "other": f"port {PORT} is in use by something that is not a Pix3 CDP proxy (HTTP {status})",
    }[detail]
    assert verdict.detail == expected


def test_challenge_headers_never_carry_the_token() -> None:
    assert proof.challenge_headers(CHALLENGE) == {"X-Pix3-Challenge": CHALLENGE}
    assert proof.challenge_headers(CHALLENGE, forward=True) == {
        "X-Pix3-Challenge": CHALLENGE,
        "X-Pix3-Proof-Scope": "forward",
    }


def test_page_urls() -> None:
    listed = [
        {"type": "page", "url": "http://a/"},
        {"url": "http://untyped/"},
        {"type": "iframe", "url": "http://frame/"},
        "junk",
        {"type": "page"},
    ]
    assert proof.page_urls(listed) == ["http://a/", "http://untyped/", ""]
    assert proof.page_urls({"not": "a list"}) == []
