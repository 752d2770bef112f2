"""The dev server process (`pix3 __dev-server`, whose arguments are ``pix3net.devserver.command``).

One nursery: the public listener, Hypercorn behind it, Vite as a child when the
project has one, and the signal watcher. The first SIGTERM/SIGINT stops the server; later ones
while it stops are noted and ignored. Every exit path but SIGKILL stops Vite and removes
`.pix3/dev.json` if the record is still ours.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import signal
import socket
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import trio

from pix3net.daemon import ready
from pix3net.daemon.devrecord import DEV_LOG, Record
from pix3net.daemon.logfile import LogFile
from pix3net.devserver.front.bind import bind_one
from pix3net.devserver.front.door import Door
from pix3net.devserver.front.listener import PublicListener, connection_cap, raise_fd_limit
from pix3net.devserver.front.splice import KEEP_ALIVE_S
from pix3net.devserver.front.vite import Vite
from pix3tools.core import CLI_VERSION
from pix3tools.core.nodemodules import find_vite, installed_version

SHUTDOWN_GRACE_S = 2.0


def open_log(root: Path) -> tuple[logging.Logger, LogFile]:
    """`.pix3/dev.log`, rotating, never written through a link (`pix3net.daemon.logfile`); stdout and
    stderr follow it when they are that file (`pix3 editor` starts us so). Vite writes to
    ``child_output()``."""
    raw = LogFile.in_folder(root, DEV_LOG.parent.name, DEV_LOG.name)
    raw.take_over((1, 2))
    logger = logging.getLogger(f"pix3.devserver.{os.getpid()}")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    handler = logging.StreamHandler(raw.text())
    handler.setFormatter(logging.Formatter("%(asctime)s pix3 dev-server: %(message)s"))
    logger.addHandler(handler)
    return logger, raw


def run_server(root: Path, sockets: list[socket.socket], ready_fd: int | None = None) -> int:
    """Serve ``root`` on ``sockets`` (``bind.choose_sockets``) until SIGTERM/SIGINT; ``ready_fd``:
    the parent's readiness pipe (`pix3net.daemon.ready`), told once dev.json is written."""
    log, log_file = open_log(root)
    faulthandler.register(signal.SIGUSR1, file=log_file, all_threads=True)  # `kill -USR1`: stacks into dev.log
    try:
        trio.run(partial(serve, root, sockets, log, log_file, ready_fd=ready_fd))
    except KeyboardInterrupt:
        return 0
    except BaseException:
        log.exception("the dev server crashed")
        raise
    return 0


async def serve(
    root: Path,
    sockets: list[socket.socket],
    log: logging.Logger,
    log_file: LogFile | None,
    *,
    env: dict[str, str] | None = None,
    ready_fd: int | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    from hypercorn.config import Config, Sockets
    from hypercorn.trio.run import worker_serve
    from hypercorn.utils import wrap_app

    from pix3net.devserver.wiring import build

    env = dict(os.environ) if env is None else env
    port: int = sockets[0].getsockname()[1]
    vite_js = find_vite(root)
    versions = {
        "plugin": CLI_VERSION,
        "runtime": installed_version(root, "@pix3/runtime"),
        "editorCore": installed_version(root, "@pix3/editor-core"),
        "vite": installed_version(root, "vite") if vite_js else None,
    }
    record = Record(root, port, versions, log, env.get("PIX3_PUBLIC_URL") or None)
    door = Door.for_project(root, record.env_public, vite_js)
    vite_out = log_file.child_output() if log_file is not None else None
    vite = Vite(root, vite_js, log, vite_out) if vite_js is not None else None
    config = Config()
    config.accesslog = None
    config.errorlog = log.getChild("hypercorn")  # its "Running on" names the internal port: warnings only
    config.errorlog.setLevel(logging.WARNING)
    config.graceful_timeout = SHUTDOWN_GRACE_S
    config.keep_alive_timeout = KEEP_ALIVE_S  # idle, or a head not complete yet: the splice's rule too
    config.websocket_max_message_size = 64 * 1024 * 1024
    config.h11_max_incomplete_size = 64 * 1024

    stop = trio.Event()
    # Our handlers stay installed through the whole shutdown, the record's removal included: a
    # second SIGTERM while stopping (a supervisor that repeats itself, an impatient Ctrl-C) must
    # neither fall back to the default action nor be re-raised when a receiver closes (trio's
    # `open_signal_receiver` re-delivers what it did not hand out), either of which kills us with
    # `.pix3/dev.json` still on disk.
    with _stop_on_signals(stop, log):
        try:
            async with trio.open_nursery() as nursery:
                server = await build(root, log, versions, vite, record, nursery, door)
                if vite is not None:
                    nursery.start_soon(vite.run)
                app = wrap_app(server.asgi, 0, "asgi")  # type: ignore[arg-type]  # hypercorn types its own ASGI dicts
                internal = bind_one("127.0.0.1", socket.AF_INET, 0)
                internal_port = internal.getsockname()[1]
                await nursery.start(partial(worker_serve, app, config, sockets=Sockets([], [internal], [])))
                cap = connection_cap(raise_fd_limit())
                listener = PublicListener(
                    internal_port,
                    lambda: vite.status.port if vite is not None and vite.status.running else None,
                    log,
                    cap,
                    door,
                )
                await nursery.start(listener.serve, sockets)
                record.write()
                record.learn(None)  # PIX3_PUBLIC_URL is known from the start (checked after the first write)
                log.info("listening on http://localhost:%d/ (pid %d, project %s)", port, os.getpid(), root)
                ready.say_ready(ready_fd)
                task_status.started(port)
                await stop.wait()
                log.info("stopping")
                await server.close()
                nursery.cancel_scope.cancel()
        finally:
            record.remove()


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextlib.contextmanager
def _stop_on_signals(stop: trio.Event, log: logging.Logger) -> Iterator[None]:
    """The first SIGTERM/SIGINT sets ``stop``; later ones are noted and change nothing (the
    shutdown is bounded: the writes in flight, then Vite's grace). A signal that lands while the
    loop is blocked (Vite's synchronous stop) is queued and handled, or dropped once the loop ended."""
    token = trio.lowlevel.current_trio_token()

    def noted(signum: int) -> None:
        if stop.is_set():
            log.info("%s while stopping: already stopping", signal.Signals(signum).name)
        else:
            stop.set()

    def handler(signum: int, _frame: object) -> None:
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(noted, signum)

    previous = {signum: signal.signal(signum, handler) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
