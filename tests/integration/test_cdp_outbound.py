"""One client's outbound side on a real socket pair: direct writes finished by the writer,
fragments of big messages, and a cut that puts the close frame right after the fragment in
progress. The peer's bytes are parsed frame by frame, as a client library would."""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable

import trio

from pix3net.owner.proxy.outbound import FRAGMENT_BYTES, Budget, Client

MiB = 1024 * 1024


def parse_frames(data: bytes) -> list[tuple[int, bool, bytes]]:
    """(opcode, fin, payload) of each unmasked server frame; a cut frame fails the test."""
    frames = []
    index = 0
    while index < len(data):
        first, second = data[index], data[index + 1]
        length, index = second & 0x7F, index + 2
        if length == 126:
            length, index = struct.unpack_from("!H", data, index)[0], index + 2
        elif length == 127:
            length, index = struct.unpack_from("!Q", data, index)[0], index + 8
        assert index + length <= len(data), "a frame was cut"
        frames.append((first & 0x0F, bool(first & 0x80), data[index : index + length]))
        index += length
    return frames


async def read_all(sock: trio.socket.SocketType) -> bytes:
    data = bytearray()
    with trio.fail_after(10):
        while chunk := await sock.recv(1 << 20):
            data += chunk
    return bytes(data)


async def serve(client: Client) -> None:
    """What the proxy does around a client's writer: it runs in the client's scope, then the
    socket is closed. There is no reader here, so the writer never waits for one."""
    client.reader_done.set()
    with client.scope:
        await client.write()
    await client.stream.aclose()


async def test_direct_write_finished_by_the_writer_then_queued_in_order() -> None:
    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16 * 1024)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
    stream = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
    peer = trio.socket.from_stdlib_socket(theirs)
    client = Client(1, stream, b"", 8 * MiB, Budget())
    client.upgraded = True
    first = b"a" * 60_000  # more than the socket takes at once: part now, the rest by the writer
    # try_write never calls trio (the hot-path thread calls it): waking the writer is handed over
    deferred: list[Callable[[], object]] = []
    assert client.try_write((first[:10], memoryview(first)[10:]), len(first), deferred.append)
    assert client.mid_message
    assert deferred == [client.wake_writer]
    deferred.pop()()
    assert not client.try_write((b"b",), 1, deferred.append)  # something is ahead of it: queued instead
    assert deferred == []
    assert client.enqueue((b"b",), 1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve, client)
        await trio.sleep(0.1)
        client.hang_up(1000, "done")
        received = await read_all(peer)
    peer.close()
    assert parse_frames(received) == [(1, True, first), (1, True, b"b"), (8, True, struct.pack("!H", 1000) + b"done")]
    assert client.budget.used == 0


async def test_a_big_message_goes_out_in_fragments() -> None:
    ours, theirs = socket.socketpair()
    stream = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
    peer = trio.socket.from_stdlib_socket(theirs)
    budget = Budget()
    client = Client(1, stream, b"", 256 * MiB, budget)
    client.upgraded = True
    message = bytes(range(256)) * (10 * 1024)  # 2.5 MiB
    assert client.enqueue((message[:100], memoryview(message)[100:]), len(message))
    assert budget.used == len(message)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve, client)
        with trio.fail_after(10):
            data = bytearray()
            while len(data) < len(message) + 30:
                data += await peer.recv(1 << 20)
        client.hang_up(1000, "")
        data += await read_all(peer)
    peer.close()
    frames = parse_frames(bytes(data))
    assert [(op, fin, len(payload)) for op, fin, payload in frames[:3]] == [
        (1, False, FRAGMENT_BYTES),
        (0, False, FRAGMENT_BYTES),
        (0, True, len(message) - 2 * FRAGMENT_BYTES),
    ]
    assert b"".join(payload for _, _, payload in frames[:3]) == message
    assert budget.used == 0


async def test_a_cut_sends_the_close_frame_after_the_fragment_in_progress() -> None:
    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    stream = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
    peer = trio.socket.from_stdlib_socket(theirs)
    budget = Budget()
    client = Client(1, stream, b"", 256 * MiB, budget)
    client.upgraded = True
    for _ in range(3):
        assert client.enqueue((b"z" * (3 * MiB),), 3 * MiB)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve, client)
        await trio.sleep(0.2)  # the writer is stuck inside the first fragment: nobody reads
        assert budget.used == 9 * MiB
        client.hang_up(1008, "client too slow", drop_queued=True)
        assert budget.used == 0  # the messages are let go at once, only the fragment's rest is kept
        received = await read_all(peer)  # the client reads again, late
    peer.close()
    frames = parse_frames(received)
    assert frames[-1] == (8, True, struct.pack("!H", 1008) + b"client too slow")
    assert [(op, fin, len(p)) for op, fin, p in frames[:-1]] == [(1, False, FRAGMENT_BYTES)]
