"""Challenge/proof, local, port and forward scope (docs/cdp-proxy.md, "Proof"): vectors computed with
Node's crypto; the client's rule (only a proof bound to the port dialled is ours) as a table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pix3net.wire import proof

TOKEN = "a" * 43
CHALLENGE = "abcdefghijklmnop_-0123"
# node -e: createHmac("sha256", sha256(token)).update(challenge).digest("base64url")
NODE_LOCAL = "d2BwYWN93q1nZ4R4mOs1FDukeoTlBuaFqOPfMe2y5YY"
# node -e: hkdfSync("sha256", token, <empty salt>, "pix3 cdp proof forward v1", 32), then the HMAC
NODE_FORWARD_9333 = "thHn48UQ2Wmstqdm9vaacX9STtY6iHBwjQK1vaFgEAQ"
# node -e: hkdfSync("sha256", token, <empty salt>, "pix3 cdp proof port v1", 32), then the HMAC
# of "port\n9333\n<challenge>" (and 9334)
NODE_PORT_9333 = "_rsAIvOvb1WaPMXESZppz_vY7pLwgfi-700_CFkr0pY"
NODE_PORT_9334 = "vBFQHm-MDOOwbkyohgbAUs7EfysILvOjVvuRELikkKQ"


def test_local_proof_matches_the_reference() -> None:
    assert proof.local_proof(TOKEN, CHALLENGE) == NODE_LOCAL
    assert len(NODE_LOCAL) == 43


def test_port_proof_matches_node_hkdf() -> None:
    assert proof.port_proof(TOKEN, 9333, CHALLENGE) == NODE_PORT_9333
    assert proof.port_proof(TOKEN, 9334, CHALLENGE) == NODE_PORT_9334
    assert NODE_PORT_9333 not in (NODE_LOCAL, NODE_FORWARD_9333)


def test_our_hkdf_is_cryptography_s() -> None:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    for token in (TOKEN, "é" * 5, ""):
        for info, ours in (
            (b"pix3 cdp proof forward v1", proof.forward_key),
            (b"pix3 cdp proof port v1", proof.port_key),
        ):
            hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info)
            assert ours(token) == hkdf.derive(token.encode())


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


def test_port_scope_is_for_the_listening_port_whatever_host_says() -> None:
    def answer(host: str | None, listen: int | None, scope: str | None = "port") -> str | None:
        return proof.answer_proof(
            TOKEN, challenge=CHALLENGE, scope=scope, host=host, forward_ports=None, listen_port=listen
        )

    assert answer("127.0.0.1:9333", 9333) == NODE_PORT_9333
    # A relay on 9333 reaching the proxy on 9334: the Host it passes on names 9333, the proof 9334.
    assert answer("127.0.0.1:9333", 9334) == NODE_PORT_9334
    assert answer(None, 9333) == NODE_PORT_9333 and answer("localhost", 9333, scope=" PORT ") == NODE_PORT_9333
    assert answer("127.0.0.1:9333", None) is None  # a proxy that does not know its port proves nothing
    assert answer("127.0.0.1:9333", 9333, scope=None) == NODE_LOCAL  # the reference's request, unchanged


def test_relay_through_another_port_does_not_verify() -> None:
    # The proxy answers for the port in Host (9340, listed); the verifier dialled 9333.
    relayed = proof.answer_proof(
        TOKEN, challenge=CHALLENGE, scope="forward", host="127.0.0.1:9340", forward_ports=frozenset({9340})
    )
    assert relayed is not None
    assert not proof.verify_proof(TOKEN, CHALLENGE, relayed, port=9333, forward=True)
    assert proof.verify_proof(TOKEN, CHALLENGE, relayed, port=9340, forward=True)


def test_verify() -> None:
    assert proof.verify_proof(TOKEN, CHALLENGE, NODE_PORT_9333, port=9333)
    assert not proof.verify_proof(TOKEN, CHALLENGE, NODE_PORT_9334, port=9333)  # bound to another port
    assert not proof.verify_proof(TOKEN, CHALLENGE, NODE_LOCAL, port=9333)  # the unbound proof never verifies
    assert not proof.verify_proof("b" * 43, CHALLENGE, NODE_PORT_9333, port=9333)
    assert not proof.verify_proof(TOKEN, CHALLENGE, None, port=9333)
    assert not proof.verify_proof(TOKEN, CHALLENGE, "x" * 43, port=9333)
    assert not proof.verify_proof(TOKEN, CHALLENGE, NODE_PORT_9333[:-1], port=9333)
    assert not proof.verify_proof(TOKEN, CHALLENGE, CHALLENGE, port=9333)  # a squatter echoing the challenge
    assert not proof.verify_proof(TOKEN, CHALLENGE, "é" * 43, port=9333)
    assert proof.verify_proof(TOKEN, CHALLENGE, NODE_FORWARD_9333, port=9333, forward=True)
    assert not proof.verify_proof(TOKEN, CHALLENGE, NODE_LOCAL, port=9333, forward=True)
    assert not proof.verify_proof(TOKEN, CHALLENGE, NODE_PORT_9333, port=9333, forward=True)
    assert not proof.verify_proof(TOKEN, CHALLENGE, NODE_FORWARD_9333, port=9333)


@given(st.text(min_size=1), st.from_regex(r"[A-Za-z0-9_-]{16,128}", fullmatch=True), st.integers(1, 65535))
def test_proof_is_43_url_safe_chars(token: str, challenge: str, port: int) -> None:
    for value in (proof.local_proof(token, challenge), proof.port_proof(token, port, challenge)):
        assert len(value) == 43 and proof.is_valid_challenge(value[:43])
    assert proof.verify_proof(token, challenge, proof.port_proof(token, port, challenge), port=port)


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
PROXY = (
    f"port {PORT} is a Pix3 CDP proxy that does not know this token (HTTP 401): another user's, or one started"
    " with another PIX3_HOME"
)


@pytest.mark.parametrize(
    ("status", "headers", "token", "forward", "kind", "detail"),
    [
        # nothing answered HTTP
        (None, {}, TOKEN, False, "closed", ""),
        # the proof of our token bound to the port dialled, on any status (the usual first answer is a 401)
        (401, {"x-pix3-proof": NODE_PORT_9333, **MARKED}, TOKEN, False, "ours", ""),
        (200, {"x-pix3-proof": NODE_PORT_9333}, TOKEN, False, "ours", ""),
        (502, {"x-pix3-proof": f"  {NODE_PORT_9333} "}, TOKEN, False, "ours", ""),
        # the reference's unbound proof: a relay passes it on intact, so it is never ours
        (401, {"x-pix3-proof": NODE_LOCAL, **MARKED}, TOKEN, False, "foreign", PROXY + ", or one that cannot prove it"
         " for this port (an older pix3, or one behind a relay)"),
        # our proxy's proof for 9334, come back through whatever holds 9333: a relay, named
        (401, {"x-pix3-proof": NODE_PORT_9334, **MARKED}, TOKEN, False, "foreign", "port 9333 is held by another"
         " process that passes requests on to our CDP proxy on port 9334; the token was not sent to it"),
        # the forward scope is checked for the port dialled; neither other proof passes as one
        (401, {"x-pix3-proof": NODE_FORWARD_9333, **MARKED}, TOKEN, True, "ours", ""),
        (401, {"x-pix3-proof": NODE_LOCAL, **MARKED}, TOKEN, True, "foreign", PROXY),
        (401, {"x-pix3-proof": NODE_PORT_9333, **MARKED}, TOKEN, True, "foreign", PROXY),
        (401, {"x-pix3-proof": NODE_FORWARD_9333, **MARKED}, TOKEN, False, "foreign", PROXY + ", or one that cannot"
         " prove it for this port (an older pix3, or one behind a relay)"),
        # another token's proof, a made-up one, none, or no token to check it with
        (401, {"x-pix3-proof": proof.port_proof("b" * 43, PORT, CHALLENGE), **MARKED}, TOKEN, True, "foreign", PROXY),
        (401, {"x-pix3-proof": "x" * 43, **MARKED}, TOKEN, True, "foreign", PROXY),
        (401, {"x-pix3-proof": NODE_PORT_9333[:-1], **MARKED}, TOKEN, True, "foreign", PROXY),
        (401, MARKED, TOKEN, True, "foreign", PROXY),
        (401, {"x-pix3-proof": NODE_PORT_9333, **MARKED}, None, True, "foreign", PROXY),
        # not a Pix3 proxy: no marker (or another value)
        (200, {}, TOKEN, False, "foreign", f"port {PORT} is in use by something that is not a Pix3 CDP proxy (HTTP 200)"),
        (404, {"x-pix3-cdp-proxy": "yes"}, TOKEN, False, "foreign",
         f"port {PORT} is in use by something that is not a Pix3 CDP proxy (HTTP 404)"),
    ],
)  # fmt: skip
def test_classify(
    status: int | None, headers: dict[str, str], token: str | None, forward: bool, kind: str, detail: str
) -> None:
    verdict = proof.classify(status, headers, port=PORT, token=token, challenge=CHALLENGE, forward=forward)
    assert (verdict.kind, verdict.detail) == (kind, detail)
    assert verdict.proxy is (kind == "foreign" and headers.get("x-pix3-cdp-proxy") == "1")
    assert verdict.relay == (9334 if "held by another process" in detail else None)


def test_classify_names_the_holder_only_of_a_foreign_port() -> None:
    asked: list[int] = []

    def holder(port: int) -> str:
        asked.append(port)
        return "pid 7, squat"

    def judge(given: str, port: int = PORT, also: tuple[int, ...] = ()) -> proof.Verdict:
        headers = {"x-pix3-proof": given, **MARKED}
        return proof.classify(401, headers, port=port, token=TOKEN, challenge=CHALLENGE, also=also, holder=holder)

    assert judge(NODE_PORT_9333).kind == "ours" and asked == []  # /proc is read only for a port that failed
    assert judge(NODE_PORT_9334).detail.startswith("port 9333 is held by another process (pid 7, squat) that")
    assert "(HTTP 401; pid 7, squat)" in judge(NODE_LOCAL).detail
    # the relay's real proxy outside the CDP range is named when the caller knows where to look (chrome.json)
    far = proof.port_proof(TOKEN, 40000, CHALLENGE)
    assert judge(far).relay is None and judge(far, also=(40000,)).relay == 40000
    assert judge(NODE_PORT_9334, port=9334).kind == "ours"
    assert judge("é" * 43).kind == "foreign" and judge("").kind == "foreign"  # hostile values judged, not raised


def test_challenge_headers_never_carry_the_token() -> None:
    assert proof.challenge_headers(CHALLENGE) == {"X-Pix3-Challenge": CHALLENGE, "X-Pix3-Proof-Scope": "port"}
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
