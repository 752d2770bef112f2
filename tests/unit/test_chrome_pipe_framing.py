"""NUL framing of Chrome's pipe (docs/chrome-owner.md, "The pipe"): split anywhere, bad JSON dropped, big messages linear."""

from __future__ import annotations

import time

from hypothesis import given
from hypothesis import strategies as st

from pix3net.owner.chrome.pipe import FULL_CHECK_BYTES, NulSplitter, is_json_object_text

MESSAGES = [b'{"id":1,"result":{}}', b'{"method":"Target.attachedToTarget","params":{"x":"\\u0000"}}', b'{"id":2}']


def test_split_at_every_byte() -> None:
    stream = b"".join(m + b"\0" for m in MESSAGES)
    for cut in range(len(stream) + 1):
        splitter = NulSplitter()
        splitter.feed(stream[:cut])
        splitter.feed(stream[cut:])
        assert list(splitter.messages) == MESSAGES, cut


@given(st.lists(st.integers(min_value=1, max_value=40), max_size=30))
def test_split_in_any_chunks(sizes: list[int]) -> None:
    stream = b"".join(m + b"\0" for m in MESSAGES) * 3
    splitter = NulSplitter()
    pos = 0
    for size in sizes:
        splitter.feed(stream[pos : pos + size])
        pos += size
    splitter.feed(stream[pos:])
    assert list(splitter.messages) == MESSAGES * 3
    assert splitter.pending_bytes == 0


def test_unparsable_messages_are_dropped() -> None:
    splitter = NulSplitter()
    splitter.feed(b'not json\0{"id":1\0\0\xff\xfe\0{"id":4,"result":{}}\0{"partial"')
    assert list(splitter.messages) == [b'{"id":4,"result":{}}']
    assert splitter.pending_bytes == len(b'{"partial"')


def test_big_messages_are_checked_by_their_braces_only() -> None:
    big = b'{"id":9,"result":{"data":"' + b"A" * FULL_CHECK_BYTES + b'"}}'
    assert is_json_object_text(big)
    assert not is_json_object_text(b"[" + big[1:-1] + b"]")


def test_a_30_mb_message_in_pipe_sized_chunks_is_linear() -> None:
    size = 30 * 1024 * 1024
    message = b'{"id":9,"result":{"data":"' + b"A" * size + b'"}}'
    stream = message + b"\0"
    splitter = NulSplitter()
    start = time.perf_counter()
    for pos in range(0, len(stream), 65536):
        splitter.feed(stream[pos : pos + 65536])
    elapsed = time.perf_counter() - start
    assert list(splitter.messages) == [message]
    # A quadratic buffer (bytes += chunk) takes tens of seconds here; linear is ~0.1 s.
    assert elapsed < 2.0, elapsed
