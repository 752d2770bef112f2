"""The proxy's hot path (docs/cdp-proxy.md, "The hot path"): the thread that routes whole data
messages outside trio, the lock that keeps it and trio's task steps apart, and the hand-overs."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import struct
import threading
import time
from collections import Counter
from functools import partial
from pathlib import Path

import pytest
import trio

from pix3net.clients.cdptrio import Closed
from pix3net.owner.chrome.pipe import PipeChannel
from pix3net.owner.proxy.transport import StepLock, serve_proxy
from pix3net.wire.router import Action, Router
from tests.support.cdp_proxy import TOKEN, connect, poll_until, rpc, running_proxy
from tests.support.ports import free_port

GET_VERSION = '{"id":%d,"method":"Browser.getVersion"}'


class _Steps(trio.abc.Instrument):
    """Task steps per task, except the test's own (its client's sends and receives)."""

    def __init__(self, own: trio.lowlevel.Task) -> None:
        self.own = own
        self.steps: Counter[str] = Counter()

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        if task is not self.own:
            self.steps[task.name] += 1


def _frame(opcode: int, payload: bytes) -> bytes:
    """A masked client frame (RFC 6455 §5.2), small payloads only."""
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    assert len(payload) < 126
    return struct.pack("!BB", 0x80 | opcode, 0x80 | len(payload)) + mask + masked


async def test_step_lock_keeps_the_threads_batches_out_of_trio_steps() -> None:
    lock = StepLock()
    trio.lowlevel.add_instrument(lock)
    inside = threading.Event()
    stop = threading.Event()
    batches = 0

    def batches_forever() -> None:
        nonlocal batches
        while not stop.is_set():
            with lock:
                inside.set()
                time.sleep(0.0002)  # a batch long enough to be caught in the act
                inside.clear()
                batches += 1

    thread = threading.Thread(target=batches_forever)
    seen: list[bool] = []
    start = time.monotonic()
    thread.start()
    try:
        while len(seen) < 400 or batches < 50:
            seen.append(inside.is_set())
            await trio.lowlevel.checkpoint()
            assert time.monotonic() - start < 5, f"trio took {len(seen)} steps, the thread {batches} batches"
    finally:
        stop.set()
        trio.lowlevel.remove_instrument(lock)
        lock.release_from_trio()
        thread.join()
    assert not any(seen), f"a trio step ran during {sum(seen)} of the thread's batches"


async def test_round_trips_do_not_wake_trio(tmp_path: Path) -> None:
    """Routed by the thread alone: the proxy's tasks take no step for a request and its reply,
    also after a ping in the middle of a read handed the socket to the client's task and back."""
    async with running_proxy(tmp_path, ("about:blank",)) as proxy, connect(proxy.ws()) as ws:
        for n in range(20):  # settle: the client's task is waiting on the thread
            await ws.send(GET_VERSION % n)
            await ws.receive()
        steps = _Steps(trio.lowlevel.current_task())
        trio.lowlevel.add_instrument(steps)
        try:
            for n in range(100):
                await ws.send(GET_VERSION % n)
                assert json.loads(await ws.receive())["id"] == n
            quiet = sum(steps.steps.values())
            steps.steps.clear()
            # one read: a message, a ping, a message; the ping goes through the client's task
            both = _frame(0x1, b'{"id":1000,"method":"Browser.getVersion"}') + _frame(0x9, b"hi")
            await ws.stream.send_all(both + _frame(0x1, b'{"id":1001,"method":"Browser.getVersion"}'))
            assert [json.loads(await ws.receive())["id"] for _ in range(2)] == [1000, 1001]
            handed = sum(steps.steps.values())
            steps.steps.clear()
            for n in range(100):
                await ws.send(GET_VERSION % n)
                await ws.receive()
            again = sum(steps.steps.values())
        finally:
            trio.lowlevel.remove_instrument(steps)
        # (trio's path took at least two steps per round trip: 200 here)
        assert quiet <= 5, steps.steps
        assert handed >= 1  # the ping was the client's task's
        assert again <= 5


async def test_replies_keep_their_order_when_one_goes_through_trio(tmp_path: Path) -> None:
    """A big reply goes through the client's writer task; the small ones asked after it, which
    the thread could write at once, wait their turn behind it."""
    async with running_proxy(tmp_path, ("about:blank",)) as proxy, connect(proxy.ws()) as ws:
        await ws.send(json.dumps({"id": 1, "method": "Fake.big", "params": {"bytes": 3 * 1024 * 1024}}))
        for n in range(2, 40):
            await ws.send(GET_VERSION % n)
        with trio.fail_after(20):
            got = [json.loads(await ws.receive())["id"] for _ in range(39)]
    assert got == list(range(1, 40))


async def test_a_message_the_router_cannot_take_ends_only_its_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception routing one client's message in the thread ends that client, as it did in
    its task before (logged, closed); the proxy and the other clients go on."""
    from_client = Router.from_client

    def fragile(router: Router, client: int, text: str) -> list[Action]:
        if "boom" in text:
            raise RuntimeError("boom")
        return from_client(router, client, text)

    monkeypatch.setattr(Router, "from_client", fragile)
    async with running_proxy(tmp_path) as proxy, connect(proxy.ws()) as other, connect(proxy.ws()) as ws:
        await ws.send('{"id":1,"method":"boom"}')
        with trio.fail_after(10), pytest.raises(Closed):
            await ws.receive()
        assert (await rpc(other, {"id": 2, "method": "Browser.getVersion"}))["id"] == 2
        await poll_until(lambda: proxy.router_clients() == 1)
        assert "connection failed: RuntimeError: boom" in proxy.logs  # the cause, not its task group
        assert not proxy.served.is_set()


def _pipe_channel() -> tuple[PipeChannel, list[int]]:
    """A real pipe channel; the returned descriptors are Chrome's ends (the caller closes them)."""
    to_chrome_read, to_chrome_write = os.pipe2(os.O_CLOEXEC)
    from_chrome_read, from_chrome_write = os.pipe2(os.O_CLOEXEC)
    return PipeChannel(to_chrome_write, from_chrome_read), [to_chrome_read, from_chrome_write]


async def test_chrome_gone_before_the_proxy_took_its_pipe_still_ends(tmp_path: Path) -> None:
    """Chrome reaped between its readiness and the proxy's start, its pipe held open by what it
    left behind: the reader the proxy takes drains and ends (it waited forever on the pipe)."""
    channel, chrome_ends = _pipe_channel()
    try:
        os.write(chrome_ends[1], b'{"method":"Last.words"}\0')
        channel.drain_and_close()
        with trio.fail_after(5):
            await serve_proxy(channel, token="a" * 43, port=0, home=tmp_path, log=lambda _: None)
    finally:
        await channel.close()
        for fd in chrome_ends:
            os.close(fd)


async def test_a_pipe_closed_before_the_proxy_took_it_ends_the_proxy(tmp_path: Path) -> None:
    """The channel already closed (a failed send) when the proxy starts: the proxy ends as for
    Chrome gone, instead of failing on the closed descriptor (or watching whatever reused it)."""
    channel, chrome_ends = _pipe_channel()
    try:
        await channel.close()
        with trio.fail_after(5):
            await serve_proxy(channel, token="a" * 43, port=0, home=tmp_path, log=lambda _: None)
    finally:
        for fd in chrome_ends:
            os.close(fd)


async def test_the_channel_never_wakes_a_stopped_proxy_through_a_reused_descriptor(tmp_path: Path) -> None:
    """The proxy ended on the pipe's end; the owner ends the channel later, when it reaps Chrome.
    That wake-up must not write to the proxy's closed eventfd, whose number is reused by now."""
    channel, chrome_ends = _pipe_channel()
    reused: list[int] = []
    try:
        os.close(chrome_ends.pop())  # Chrome closed its side: the proxy ends
        with trio.fail_after(5):
            await serve_proxy(channel, token="a" * 43, port=0, home=tmp_path, log=lambda _: None)
        for _ in range(8):  # the lowest free numbers: the proxy's eventfd, epoll, pipe, listener
            reused.extend(os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK))
        channel.drain_and_close()  # Chrome reaped
        await channel.close()
        for fd in reused[::2]:
            with pytest.raises(BlockingIOError):
                os.read(fd, 64)
    finally:
        for fd in chrome_ends + reused:
            os.close(fd)


async def test_a_send_to_a_pipe_nobody_reads_ends_with_the_pipe(tmp_path: Path) -> None:
    """Chrome killed while what it left behind holds both ends of its pipe: what was sent after
    it died fills the pipe and the proxy's send to Chrome waits (shielded: never half a message).
    The end of the pipe must end that send, or the proxy never ends (as the channel's own reading
    did before the hot path took it)."""
    channel, (to_chrome_read, from_chrome_write) = _pipe_channel()
    os.set_blocking(to_chrome_read, False)
    ended = trio.Event()

    async def serve(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await serve_proxy(channel, token=TOKEN, port=0, home=tmp_path, log=lambda _: None, task_status=task_status)
        finally:
            ended.set()

    try:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(serve)
            with contextlib.suppress(BlockingIOError):  # commands a dead Chrome never read
                while True:
                    os.write(channel._out.fileno(), b"x" * 65536)
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            async with stream:
                head = f"GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"
                await stream.send_all(head.encode())  # the proxy's own call: queued behind them
                with trio.fail_after(5):
                    while not channel._send_lock.locked():  # noqa: ASYNC110 - the channel has no event for it
                        await trio.sleep(0.01)
                channel.drain_and_close()  # Chrome reaped; the pipe stays open
                with trio.move_on_after(5):
                    await ended.wait()
                in_time = ended.is_set()
                with trio.fail_after(10):  # else read the pipe, so that the test ends
                    while not ended.is_set():
                        with contextlib.suppress(BlockingIOError):
                            os.read(to_chrome_read, 1 << 20)
                        await trio.sleep(0.01)
    finally:
        await channel.close()
        for fd in (to_chrome_read, from_chrome_write):
            os.close(fd)
    assert in_time, "the proxy waited on a pipe that nobody reads after its end"


async def test_draining_a_pipe_that_keeps_coming_does_not_freeze_trio(tmp_path: Path) -> None:
    """Chrome reaped while something it left behind still writes to its pipe: the thread drains
    a batch at a time, so trio's tasks (the owner's signals, the other clients) keep running."""
    channel, (to_chrome_read, from_chrome_write) = _pipe_channel()
    messages = b'{"method":"Left.behind","params":{}}\0' * 2000

    def write_for(seconds: float) -> None:
        end = time.monotonic() + seconds
        with contextlib.suppress(OSError):  # the proxy is gone (a failing run)
            while time.monotonic() < end:
                os.write(from_chrome_write, messages)

    worst = 0.0

    async def ticker() -> None:
        nonlocal worst
        last = time.monotonic()
        while True:
            await trio.sleep(0.01)
            now = time.monotonic()
            worst, last = max(worst, now - last), now

    # A frozen loop would take no step for the writer's whole 3 s. Quiet, the worst step is ~0.15 s;
    # at load 13 on these 2 cores it reached 2.05 s (the loop's thread, the hot path's and the
    # writer's share one interpreter): the bound leaves room for that, not for a freeze.
    writer = threading.Thread(target=write_for, args=(3.0,))
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(serve_proxy, channel, token=TOKEN, port=0, home=tmp_path, log=lambda _: None))
            writer.start()
            channel.drain_and_close()  # Chrome reaped; the pipe stays open and full
            nursery.start_soon(ticker)
            await trio.sleep(3.5)
            nursery.cancel_scope.cancel()
    finally:
        writer.join()
        await channel.close()
        for fd in (to_chrome_read, from_chrome_write):
            os.close(fd)
    assert worst < 2.5, f"trio took no step for {worst:.2f} s"


def _open_fds() -> set[str]:
    """This process's descriptors (not the one that lists them: it is closed by then)."""
    return {fd for fd in os.listdir("/proc/self/fd") if os.path.exists(f"/proc/self/fd/{fd}")}


@pytest.mark.parametrize("fault", ["no descriptor for the eventfd", "no thread"])
async def test_a_hot_path_that_cannot_start_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """Out of descriptors or threads as the proxy starts: it fails with the cause, its listener is
    closed (the port can be bound again), its descriptors are closed, and trio steps on."""
    channel, chrome_ends = _pipe_channel()
    ours = {str(channel._read_fd), str(channel._out.fileno())}
    port = free_port()
    before = _open_fds()
    if fault == "no thread":

        def cannot_start(self: threading.Thread) -> None:
            raise RuntimeError("can't start new thread")

        monkeypatch.setattr(threading.Thread, "start", cannot_start)
    else:

        def cannot_open(*args: object) -> int:
            raise OSError(errno.EMFILE, "Too many open files")

        monkeypatch.setattr(os, "eventfd", cannot_open)
    try:
        with pytest.raises((OSError, RuntimeError)):
            await serve_proxy(channel, token=TOKEN, port=port, home=tmp_path, log=lambda _: None)
        monkeypatch.undo()
        for _ in range(3):
            await trio.lowlevel.checkpoint()  # a lock left held by an instrument would stop trio here
        socket.create_server(("127.0.0.1", port)).close()
        # nothing of the proxy's is left open; the channel's pipe went with the reader it took
        after = _open_fds()
        assert after == (before - ours if fault == "no thread" else before)
    finally:
        await channel.close()
        for fd in chrome_ends:
            os.close(fd)
