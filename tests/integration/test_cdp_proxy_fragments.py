"""A message sent in many small fragments costs the owner what it carries, not an object per frame,
and a message has at most MAX_FRAMES_PER_MESSAGE frames (docs/cdp-proxy.md, "Limits"). Through the
proxy in a process of its own, whose RSS is what the owner's would be."""

from __future__ import annotations

import json
import struct
import time

from pix3net.wire.frames import MAX_FRAMES_PER_MESSAGE
from tests.support.cdp_attack import one_byte_fragments, read_until_closed, send_all_until_closed, upgraded
from tests.support.cdp_proxy import TOKEN
from tests.support.cdp_proxy_process import proxy_process

MiB = 1024 * 1024


def replies(data: bytes) -> list[dict[str, object]]:
    """The text frames of a server's ``data`` (unmasked, each under 64 KiB), as JSON."""
    out = []
    position = 0
    while position + 2 <= len(data):
        length, start = data[position + 1] & 0x7F, position + 2
        if length == 126:
            length, start = struct.unpack_from("!H", data, position + 2)[0], position + 4
        if data[position] & 0x0F == 0x1:
            out.append(json.loads(data[start : start + length]))
        position = start + length
    return out


def test_empty_fragments_count_and_a_message_has_at_most_so_many_frames() -> None:
    """Zero-length continuations used to count for nothing: 5 M of them grew the owner without
    bound. One frame over the cap closes the client 1009 with the reason."""
    with proxy_process() as proxy:
        sock = upgraded(proxy.port, TOKEN)
        with sock:
            send_all_until_closed(sock, one_byte_fragments(MAX_FRAMES_PER_MESSAGE + 1, payload=b""))
            got = read_until_closed(sock)
    reason = f"a message in more than {MAX_FRAMES_PER_MESSAGE} frames".encode()
    assert got == b"\x88" + bytes([len(reason) + 2]) + struct.pack("!H", 1009) + reason


def test_one_byte_fragments_cost_what_they_carry_and_the_memory_comes_back() -> None:
    """5 messages of 100 000 one-byte fragments (3.5 MB on the wire): each is read whole, the
    owner grows by less than twice the wire bytes plus 64 MiB, and is back within 10 % of where it
    started once the client is gone (before: +9 MiB kept, a bytes object per frame)."""
    count, messages = 100_000, 5
    with proxy_process() as proxy:
        time.sleep(0.3)
        start = proxy.rss_mib()
        sock = upgraded(proxy.port, TOKEN)
        with sock:
            wire = sum(send_all_until_closed(sock, one_byte_fragments(count)) for _ in range(messages))
            got = b""
            while got.count(b'"error"') < messages:
                chunk = sock.recv(65536)
                assert chunk, "closed before every message was answered"
                got += chunk
            peak = proxy.rss_mib()
        # "   …1" is read whole: JSON, but not a request
        assert [r.get("error") for r in replies(got)] == [
            {"code": -32600, "message": "Message must have an integer id and a string method"}
        ] * messages
        time.sleep(1)
        after = proxy.rss_mib()
    assert peak - start <= 2 * wire / MiB + 64, (start, peak)
    assert after <= start * 1.1, (start, peak, after)
