"""The daemons' logs under attack (docs/reliability.md, "Logs"): junk requests do not grow the
Chrome owner's log, and a `.pix3/dev.log` planted as a link is never written through."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from pix3net.devserver.control import spawn_server
from pix3net.owner.control import start_owner, stop_owner
from tests.support.cdp_attack import junk_requests
from tests.support.chrome import fake_chrome_wrapper
from tests.support.devserver import dev_server
from tests.support.ports import free_port
from tests.support.processes import processes_with

MiB = 1024 * 1024


async def test_32_mb_of_junk_requests_grow_the_owners_log_by_at_most_1_mib(pix3_home: Path, tmp_path: Path) -> None:
    """Before: a line per refused request, the request's target in it: 32 MB of junk, 32 MB of log."""
    port = free_port()
    started = await start_owner(
        pix3_home,
        chrome=str(fake_chrome_wrapper(tmp_path)),
        port=port,
        profile=str(pix3_home / "chrome"),
        url="http://localhost:5173/__pix3/",
        headless=True,
    )
    log = pix3_home / "chrome-owner.log"
    try:
        before = log.stat().st_size
        requests = junk_requests(port, 32 * 1000 * 1000)
        assert stop_owner(pix3_home).startswith("Stopped Chrome")
        grown = log.stat().st_size - before
        text = log.read_text()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(started.pid, signal.SIGKILL)
        for pid in processes_with(str(pix3_home / "chrome")):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert grown <= MiB, grown
    assert requests >= 1990
    # a whole line per cause and interval (the start's own proof is the first), then how many more:
    # every refusal is accounted for, and no line quotes a whole 16 KB target
    counted = sum(int(line.split(": ")[-1].split()[0]) for line in text.splitlines() if "refused HTTP 401: " in line)
    assert text.count("] refused GET /json/version") + counted >= requests
    assert max(map(len, text.splitlines())) < 1000


def test_a_dev_log_planted_as_a_link_is_not_written_through(tmp_path: Path) -> None:
    """A cloned project can hold `.pix3/dev.log` → a file of the user's: neither `pix3 editor`
    (which empties the log and hands it to the server) nor the server writes there."""
    outside = tmp_path / "precious.txt"
    outside.write_bytes(b"the user's own file\n")
    root = tmp_path / "project"
    (root / ".pix3").mkdir(parents=True)
    (root / "pix3project.yaml").write_text("name: x\n")
    (root / ".pix3" / "dev.log").symlink_to(outside)
    child = spawn_server(root, [sys.executable, "-c", "print('from the child')"], None)
    assert child.wait(10) == 0
    assert outside.read_bytes() == b"the user's own file\n"
    assert (root / ".pix3" / "dev.log").read_bytes() == b"from the child\n"
    (root / ".pix3" / "dev.log").unlink()
    (root / ".pix3" / "dev.log").symlink_to(outside)
    with dev_server(root) as server:
        server.log_saying("listening on")
        assert not (root / ".pix3" / "dev.log").is_symlink()
    assert outside.read_bytes() == b"the user's own file\n"


def test_the_dev_server_log_follows_its_stdout_and_vite_pipe(tmp_path: Path) -> None:
    """The server's stdout is dev.log when `pix3 editor` starts it; what reaches it (a traceback,
    `kill -USR1` stacks) lands in the same file as the server's own lines."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "pix3project.yaml").write_text("name: x\n")
    port = free_port()
    argv = [sys.executable, "-m", "pix3net", "__dev-server", "--project", str(root), "--port", str(port)]
    child = spawn_server(root, argv, None)
    try:
        log = root / ".pix3" / "dev.log"
        for _ in range(300):
            if "listening on" in log.read_text(errors="replace"):
                break
            subprocess.run(["sleep", "0.05"], check=True)
        os.kill(child.pid, signal.SIGUSR1)
        for _ in range(100):
            if "Current thread" in log.read_text(errors="replace") or "Thread 0x" in log.read_text(errors="replace"):
                break
            subprocess.run(["sleep", "0.05"], check=True)
        text = log.read_text(errors="replace")
    finally:
        child.terminate()
        child.wait(15)
    assert "listening on" in text and "Thread 0x" in text
