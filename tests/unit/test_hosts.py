"""The one Host rule both daemons share (docs/devserver.md, "The Host rule"), as tables."""

from __future__ import annotations

import pytest

from pix3net.wire.hostrule import (
    EDITOR_NAME,
    GAME_NAME,
    game_page_url,
    host_allowed,
    is_loopback_name,
    other_loopback_name,
    public_names,
    split_host,
)

ACCEPTED = [
    "localhost",
    "LocalHost:5173",
    "127.0.0.1",
    "127.0.0.1:9333",
    "127.0.0.2:9333",
    "127.255.255.255",
    "127.8.9.10:4",
    "127.0.0.1:65535",
    "[::1]",
    "[::1]:5173",
    " 127.0.0.1 ",  # optional whitespace around a field value is not part of it (RFC 9110 §5.5)
]

REFUSED = [
    # DNS rebinding: names a page's author controls that resolve to a loopback address
    "127.evil.example",
    "127.evil.example:5173",
    "127.0.0.1.nip.io",
    "127.0.0.1.nip.io:5173",
    "localhost.evil.example",
    "evil.example",
    "127.0.0.1@evil.example",
    # a loopback address, but not the way a browser writes it
    "127.1",
    "127.0.1",
    "0x7f.0.0.1",
    "0177.0.0.1",
    "2130706433",
    "127.000.0.1",
    "127.0.0.01",
    "127.0.0.256",
    "127.0.0.1.",
    "localhost.",
    "[0:0:0:0:0:0:0:1]",
    "[::ffff:127.0.0.1]",
    # not loopback at all
    "0.0.0.0",
    "128.0.0.1",
    "[::2]",
    # malformed
    "",
    " ",
    "localhost:",
    "localhost:abc",
    "localhost:123456",
    "[::1",
    "::1",
    "[::1]x",
    "localhost, 127.0.0.1",
    "local host",
]


@pytest.mark.parametrize("value", ACCEPTED)
def test_loopback_names_are_accepted(value: str) -> None:
    assert host_allowed([value])


@pytest.mark.parametrize("value", REFUSED)
def test_everything_else_is_refused(value: str) -> None:
    assert not host_allowed([value])


def test_host_must_be_there_once() -> None:
    assert not host_allowed([])
    assert not host_allowed(["127.0.0.1", "127.0.0.1"])
    assert not host_allowed(["127.0.0.1", "evil.example"])


def test_public_names_are_accepted_by_name_with_any_port() -> None:
    public = public_names("https://Box.Example/")
    assert public == {"box.example"}
    assert host_allowed(["box.example"], public)
    assert host_allowed(["BOX.EXAMPLE:8443"], public)
    assert not host_allowed(["sub.box.example"], public)
    assert not host_allowed(["box.example.evil"], public)
    assert not host_allowed(["box.example"])  # only when configured


@pytest.mark.parametrize(
    ("url", "names"),
    [
        ("http://localhost:5174", {"localhost"}),
        ("https://box.example:8443/base/", {"box.example"}),
        ("http://[::1]:9/", {"[::1]"}),
        ("http://[2001:db8::1]/", {"[2001:db8::1]"}),
        ("", set()),
        (None, set()),
        ("ftp://box.example/", set()),
        ("not a url", set()),
        ("http://[::1/", set()),
    ],
)
def test_public_names_of_a_configured_url(url: str | None, names: set[str]) -> None:
    assert public_names(url) == names


def test_split_host() -> None:
    assert split_host("LocalHost:5173") == ("localhost", 5173)
    assert split_host("[::1]") == ("[::1]", None)
    assert split_host("localhost:") is None
    assert is_loopback_name("127.0.0.9") and not is_loopback_name("127.0.0.9:1")


def test_the_game_runs_under_the_other_loopback_name() -> None:
    # another site than the editor page's, so Chrome gives the game a renderer of its own
    assert other_loopback_name("localhost") == "127.0.0.1"
    # the pair is fixed: the editor page's name and the game's
    assert (EDITOR_NAME, GAME_NAME) == ("localhost", "127.0.0.1") and other_loopback_name(GAME_NAME) == EDITOR_NAME
    assert [other_loopback_name(n) for n in ("127.0.0.1", "127.1.2.3", "[::1]")] == ["localhost"] * 3
    # `*.localhost` is the same site as localhost; a public name has no second name
    assert [other_loopback_name(n) for n in ("game.localhost", "devbox.example", "127.1")] == [None] * 3


def test_a_game_page_url_is_under_the_game_s_name() -> None:
    """`pix3 smoke` opens the game where the editor page's frame runs it: under the game's name."""
    assert game_page_url("http://localhost:5173/") == "http://127.0.0.1:5173/"
    assert game_page_url("http://localhost/base/?x=1") == "http://127.0.0.1/base/?x=1"
    assert game_page_url("http://127.0.0.1:5173/") == "http://127.0.0.1:5173/"  # already the game's
    assert game_page_url("https://pix3.example.com/") == "https://pix3.example.com/"  # a public name has no pair
