"""The dev server under load and faults: a real `pix3 __dev-server`, with the real Vite where it matters.

Phases, each bounded and on 127.0.0.1 only (docs/reliability.md lists their fast versions):
1. load: module fetches through the splice, API reads and verified writes, an editor tab, for
   N minutes; the server's RSS, descriptors and threads sampled every second;
2. SIGKILL mid-write and mid-changeset, again and again: after each restart every acknowledged
   write is on disk with its hash, every changeset is all there or not at all, no temp is left;
3. EMFILE: `ulimit -n 1024` and 1 100 idle connections, while clients keep asking;
4. a full disk (a small tmpfs): 507 `no_space`, nothing left behind, writes again once freed;
5. hostile bodies: nesting bombs on every JSON route and the editor socket, a 900 MiB PUT, paths
   that are not UTF-8;
6. slowloris: 300 connections sending a head a byte a second, while a client keeps working;
7. Vite SIGKILLed under fetches (502, never an empty reply), then the dev server SIGKILLed: Vite
   and the process a Vite plugin started must go with it.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import trio
import trio_websocket

from pix3net.devserver.front.splice import HEAD_TIMEOUT_S
from tests.soak._report import Figure
from tests.support.devserver import DevServer, dev_server, hello, wait_vite_ready
from tests.support.node import NODE_DIR
from tests.support.processes import pid_alive
from tests.support.projects import make_project

AREA = "devserver"
X = {"X-Pix3": "1"}
API = "/__pix3/api"
MODULES = 50
MiB = 1024 * 1024
PLUGIN_WITH_A_CHILD = """
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
export default { plugins: [{ name: "spawns-a-child", configureServer() {
  writeFileSync("plugin-child.pid", String(spawn("sleep", ["600"], { stdio: "ignore" }).pid));
} }] };
"""


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _status(pid: int, key: str) -> int:
    match = re.search(rf"^{key}:\s+(\d+)", Path(f"/proc/{pid}/status").read_text(), re.M)
    return int(match.group(1)) if match else 0


def _fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _vite_project(root: Path) -> Path:
    files = {f"src/m{i:02d}.js": f"export const value{i} = {i};\n" for i in range(MODULES)}
    files["index.html"] = '<!doctype html><script type="module" src="/src/m00.js"></script>\n'
    files["vite.config.mjs"] = PLUGIN_WITH_A_CHILD
    make_project(root, files)
    (root / "node_modules").symlink_to(NODE_DIR / "node_modules")
    return root


def _vite_port(server: DevServer) -> int:
    pid = hello(server)["vite"]["pid"]
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    return int(argv[argv.index(b"--port") + 1])


@dataclass
class Sampler:
    """RSS (MiB), descriptors and threads of one process, every second, in a thread."""

    pid: int
    rss: list[float] = field(default_factory=list)
    fds: list[int] = field(default_factory=list)
    threads: list[int] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> Sampler:
        threading.Thread(target=self._run, daemon=True).start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(OSError):
                self.rss.append(_status(self.pid, "VmRSS") / 1024)
                self.fds.append(_fds(self.pid))
                self.threads.append(_status(self.pid, "Threads"))
            self._stop.wait(1.0)


# -- 1. load -------------------------------------------------------------------------------------


@dataclass
class Tally:
    requests: int = 0
    errors: int = 0
    wrong: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, ok: bool, wrong: bool = False) -> None:
        with self.lock:
            self.requests += 1
            self.errors += not ok
            self.wrong += wrong


def _fetcher(port: int, until: float, tally: Tally) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    rng = random.Random()
    while time.monotonic() < until:
        i = rng.randrange(MODULES)
        try:
            connection.request("GET", f"/src/m{i:02d}.js", headers={"Host": f"localhost:{port}"})
            answer = connection.getresponse()
            body = answer.read()
            tally.add(answer.status == 200, wrong=f"value{i} = {i};".encode() not in body)
        except (OSError, http.client.HTTPException):
            tally.add(False)
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.close()


def _writer(url: str, name: str, until: float, tally: Tally) -> None:
    rng = random.Random()
    with httpx.Client(base_url=url, headers=X, timeout=30) as client:
        n = 0
        while time.monotonic() < until:
            n += 1
            path = f"load/{name}/{n % 40}.txt"
            data = os.urandom(rng.randrange(1, 64 * 1024))
            try:
                put = client.put(f"{API}/file?path={path}", content=data)
                back = client.get(f"{API}/file?path={path}")
                tally.add(put.status_code == 200 and back.status_code == 200, wrong=back.content != data)
                if n % 25 == 0:
                    tally.add(client.get(f"{API}/manifest").status_code == 200)
                tally.add(client.get(f"{API}/hello").status_code == 200)
            except httpx.HTTPError:
                tally.add(False)


def _tab(ws_url: str, until: float, frames: list[int]) -> None:
    async def main() -> None:
        async with trio_websocket.open_websocket_url(ws_url) as ws:
            await ws.send_message(json.dumps({"type": "hello", "tabId": "soak-tab"}))
            with trio.move_on_at(trio.current_time() + max(0.0, until - time.monotonic())):
                while True:
                    await ws.get_message()
                    frames[0] += 1

    trio.run(main)


def _load(tmp: Path, minutes: float) -> list[Figure]:
    with dev_server(_vite_project(tmp / "load"), wait_vite=True) as server:
        until = time.monotonic() + minutes * 60
        tally, frames = Tally(), [0]
        workers = [threading.Thread(target=_fetcher, args=(server.port, until, tally)) for _ in range(4)]
        workers += [threading.Thread(target=_writer, args=(server.url, f"w{k}", until, tally)) for k in range(2)]
        workers.append(threading.Thread(target=_tab, args=(server.ws_url, until, frames)))
        with Sampler(server.proc.pid) as sampler:
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join(minutes * 60 + 60)
        warm = sampler.rss[min(5, len(sampler.rss) - 1) :]
        seconds = minutes * 60
    return [
        Figure(
            AREA,
            f"load: requests in {minutes:g} min (4 fetchers, 2 writers, 1 tab)",
            tally.requests,
            "",
            note=f"{tally.requests / seconds:.0f}/s; {frames[0]} pix3:fs frames to the tab",
        ),
        Figure(AREA, "load: failed requests", tally.errors, "", 0),
        Figure(AREA, "load: wrong answers (module text, bytes read back)", tally.wrong, "", 0),
        Figure(
            AREA,
            "load: RSS growth after warm-up",
            max(warm) - warm[0],
            "MiB",
            32,
            note=f"{sampler.rss[0]:.0f} MiB at start, {max(sampler.rss):.0f} at most",
        ),
        Figure(AREA, "load: descriptors, most at once", max(sampler.fds), ""),
        Figure(AREA, "load: threads, most at once", max(sampler.threads), ""),
    ]


# -- 2. SIGKILL mid-write and mid-changeset ------------------------------------------------------------


@dataclass
class Ledger:
    acked: dict[str, str] = field(default_factory=dict)  # path → sha the server acknowledged
    changesets: list[tuple[bool, dict[str, str]]] = field(default_factory=list)  # (acknowledged, files)


def _write_until_killed(url: str, epoch: int, ledger: Ledger, stop: threading.Event) -> None:
    rng = random.Random(epoch)
    with httpx.Client(base_url=url, headers=X, timeout=30) as client:
        n = 0
        while not stop.is_set():
            n += 1
            try:
                if n % 2:
                    path = f"kill/{epoch}/put-{n}.bin"
                    data = os.urandom(rng.choice((1024, 256 * 1024, 2 * MiB)))
                    if client.put(f"{API}/file?path={path}", content=data).status_code == 200:
                        ledger.acked[path] = sha(data)
                else:
                    files = {f"kill/{epoch}/cs-{n}-{k}.txt": os.urandom(300 * 1024).hex() for k in range(3)}
                    intent = {p: sha(t.encode()) for p, t in files.items()}
                    ledger.changesets.append((False, intent))
                    body = {"files": [{"path": p, "text": t} for p, t in files.items()]}
                    if client.post(f"{API}/changeset", json=body).status_code == 200:
                        ledger.changesets[-1] = (True, intent)
                        ledger.acked.update(intent)
            except httpx.HTTPError:
                return


def _on_disk(root: Path, path: str) -> str | None:
    try:
        return sha((root / path).read_bytes())
    except OSError:
        return None


def _check(root: Path, ledger: Ledger) -> tuple[int, int]:
    """(acknowledged writes not on disk with their hash, changesets only partly on disk)."""
    lost = sum(_on_disk(root, p) != s for p, s in ledger.acked.items())
    torn = 0
    for _acked, files in ledger.changesets:
        present = [_on_disk(root, p) == s for p, s in files.items()]
        torn += any(present) and not all(present)
    return lost, torn


def _kills(tmp: Path, kills: int) -> list[Figure]:
    """Each server first checks what the previous one acknowledged before it was killed (the
    restart has run recovery by the time it listens), then writes until it is killed in turn."""
    root = make_project(tmp / "kills", {"index.html": "<p>kills</p>\n"})
    ledgers: list[Ledger] = []
    lost = torn = leftovers = 0
    rng = random.Random(1)
    for epoch in range(kills + 1):
        with dev_server(root) as server:
            hello(server)
            if ledgers:
                epoch_lost, epoch_torn = _check(root, ledgers[-1])
                lost, torn = lost + epoch_lost, torn + epoch_torn
                leftovers += sum(
                    len(list((root / ".pix3" / d).glob("*"))) for d in ("tmp", "tx") if (root / ".pix3" / d).is_dir()
                )
            if epoch == kills:
                break
            ledgers.append(Ledger())
            stop = threading.Event()
            writer = threading.Thread(target=_write_until_killed, args=(server.url, epoch, ledgers[-1], stop))
            writer.start()
            time.sleep(rng.uniform(0.3, 1.5))
            server.proc.send_signal(signal.SIGKILL)
            server.proc.wait(10)
            stop.set()
            writer.join(30)
    at_the_end = [_check(root, ledger) for ledger in ledgers]
    log = (root / ".pix3" / "dev.log").read_text(errors="replace")
    recoveries = {
        what: log.count(what)
        for what in ("rolled forward", "rolled back", "no readable intent", "committed; cleaned up")
    }
    acked = sum(len(ledger.acked) for ledger in ledgers)
    changesets = sum(len(ledger.changesets) for ledger in ledgers)
    done = sum(1 for ledger in ledgers for ok, _ in ledger.changesets if ok)
    return [
        Figure(AREA, "SIGKILL mid-write/changeset: kills, each followed by a restart", kills, ""),
        Figure(
            AREA,
            "SIGKILL: acknowledged writes (PUT files + changeset files)",
            acked,
            "",
            note=f"{done} changesets acknowledged, {changesets - done} cut by a kill",
        ),
        Figure(AREA, "SIGKILL: acknowledged writes not on disk with their hash", lost, "", 0),
        Figure(
            AREA,
            "SIGKILL: changesets partly applied after recovery",
            torn,
            "",
            0,
            note="recovery: " + ", ".join(f"{n} {what}" for what, n in recoveries.items()),
        ),
        Figure(AREA, "SIGKILL: files left in .pix3/tmp or .pix3/tx after a restart", leftovers, "", 0),
        Figure(
            AREA,
            "SIGKILL: acknowledged writes or whole changesets gone by the end",
            sum(a + b for a, b in at_the_end),
            "",
            0,
        ),
    ]


# -- 3. EMFILE -------------------------------------------------------------------------------------------


def _emfile(tmp: Path) -> list[Figure]:
    root = make_project(tmp / "emfile", {"index.html": "<p>x</p>\n"})
    with dev_server(root, nofile=1024) as server, Sampler(server.proc.pid) as sampler:
        idle: list[socket.socket] = []
        waits: list[float] = []
        failed = 0
        try:
            for _ in range(1100):
                idle.append(socket.create_connection(("127.0.0.1", server.port), timeout=10))
            for _ in range(20):
                start = time.monotonic()
                try:
                    ok = httpx.get(server.url + f"{API}/hello", timeout=30).status_code == 200
                except httpx.HTTPError:
                    ok = False
                failed += not ok
                waits.append(time.monotonic() - start)
        finally:
            for sock in idle:
                sock.close()
        after = httpx.get(server.url + f"{API}/hello", timeout=30).status_code == 200
        alive = server.proc.poll() is None and after
    return [
        Figure(
            AREA,
            "EMFILE (ulimit -n 1024, 1 100 idle connections): requests failed",
            failed,
            "",
            0,
            note=f"20 asked while flooded, slowest {max(waits) * 1000:.0f} ms",
        ),
        Figure(AREA, "EMFILE: server dead or not serving afterwards", 0 if alive else 1, "", 0),
        Figure(
            AREA,
            "EMFILE: threads, most at once",
            max(sampler.threads, default=0),
            "",
            350,
            note="one per connection, at most (1024 − 96) / 3 = 309 connections",
        ),
    ]


# -- 4. a full disk ----------------------------------------------------------------------------------


@contextlib.contextmanager
def _tmpfs(path: Path, size: str) -> Iterator[Path]:
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True, capture_output=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def _disk_full(tmp: Path) -> list[Figure]:
    with _tmpfs(tmp / "disk", "16m") as disk:
        root = make_project(disk / "game", {"index.html": "<p>x</p>\n"})
        with dev_server(root) as server, httpx.Client(base_url=server.url, headers=X, timeout=30) as client:
            written = wrong = 0
            for n in range(200):
                answer = client.put(f"{API}/file?path=fill/{n}.bin", content=os.urandom(256 * 1024))
                if answer.status_code == 200:
                    written += 1
                    continue
                wrong += (answer.status_code, answer.json().get("error")) != (507, "no_space")
                break
            files = [{"path": f"cs/{k}.txt", "text": "z" * MiB} for k in range(3)]
            changeset = client.post(f"{API}/changeset", json={"files": files})
            wrong += (changeset.status_code, changeset.json().get("error")) != (507, "no_space")
            left = sum(
                len(list((root / ".pix3" / d).glob("*"))) for d in ("tmp", "tx") if (root / ".pix3" / d).is_dir()
            )
            for n in range(written):
                (root / "fill" / f"{n}.bin").unlink()
            recovered = client.post(f"{API}/changeset", json={"files": files}).status_code == 200
    return [
        Figure(AREA, "disk full (16 MiB tmpfs): writes before it filled", written, ""),
        Figure(AREA, "disk full: refusals other than 507 no_space", wrong, "", 0),
        Figure(AREA, "disk full: files left in .pix3/tmp or .pix3/tx", left, "", 0),
        Figure(AREA, "disk full: writes refused once space was freed", 0 if recovered else 1, "", 0),
    ]


# -- 5. hostile bodies --------------------------------------------------------------------------------


def _big_put(server: DevServer, size: int) -> tuple[int, float]:
    """(status, seconds) of a PUT of ``size`` bytes sent as fast as loopback goes."""
    chunk = os.urandom(4 * MiB)
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=300) as sock:
        head = f"PUT {API}/file?path=big.bin HTTP/1.1\r\nHost: localhost\r\nX-Pix3: 1\r\nContent-Length: {size}\r\n\r\n"
        sock.sendall(head.encode())
        for _ in range(size // len(chunk)):
            sock.sendall(chunk)
        answer = sock.recv(65536)
    return int(answer.split(b" ")[1]), time.monotonic() - start


def _hostile(tmp: Path) -> list[Figure]:
    root = make_project(tmp / "hostile", {"index.html": "<p>x</p>\n"})
    deep = [b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 100_000 + b"1" + b"}" * 100_000]
    routes = ["flush", "sync", "handover/claim", "check", "hash", "mkdir", "delete", "move", "changeset"]
    with dev_server(root) as server:
        wrong = 0
        with httpx.Client(base_url=server.url, headers=X, timeout=30) as client:
            for route in routes:
                for bomb in deep:
                    answer = client.post(f"{API}/{route}", content=bomb)
                    wrong += (answer.status_code, answer.json().get("error")) != (400, "bad_json")
            for query in ("a%ed%a0%80.txt", "%ff%fe.txt", "x%c3(.txt"):
                answer = client.put(f"{API}/file?path={query}", content=b"x")
                wrong += (answer.status_code, answer.json().get("error")) != (400, "bad_path")

        async def socket_bombs() -> bool:
            async with trio_websocket.open_websocket_url(server.ws_url) as ws:
                for bomb in deep:
                    await ws.send_message(bomb.decode())
                await ws.send_message(json.dumps({"type": "hello", "tabId": "after-bombs"}))
                with trio.fail_after(10):
                    return bool(json.loads(await ws.get_message())["type"] == "welcome")

        welcomed = trio.run(socket_bombs)
        before = _status(server.proc.pid, "VmHWM") / 1024
        status, seconds = _big_put(server, 900 * MiB)
        grown = _status(server.proc.pid, "VmHWM") / 1024 - before
        (root / "big.bin").unlink(missing_ok=True)
        traceback = "Traceback" in server.log()
    return [
        Figure(
            AREA,
            "hostile: nesting bombs and non-UTF-8 paths not answered 400",
            wrong,
            "",
            0,
            note=f"{len(routes) * 2} bombs on {len(routes)} routes, 3 paths",
        ),
        Figure(AREA, "hostile: editor socket dead after two nesting bombs", 0 if welcomed else 1, "", 0),
        Figure(
            AREA, "hostile: 900 MiB PUT, peak memory growth", grown, "MiB", 64, note=f"HTTP {status} in {seconds:.1f} s"
        ),
        Figure(AREA, "hostile: tracebacks in dev.log", int(traceback), "", 0),
    ]


# -- 6. slowloris -------------------------------------------------------------------------------------


def _slowloris(tmp: Path) -> list[Figure]:
    root = make_project(tmp / "slow", {"index.html": "<p>x</p>\n"})
    with dev_server(root) as server, httpx.Client(base_url=server.url, timeout=10) as client:
        slow = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(300)]
        for sock in slow:
            sock.sendall(b"GET / HTTP/1.1\r\n")
            sock.setblocking(False)
        start = time.monotonic()
        open_ = set(range(len(slow)))
        waits: list[float] = []
        while open_ and time.monotonic() - start < HEAD_TIMEOUT_S + 10:
            for n in list(open_):
                try:
                    if slow[n].recv(4096) == b"":
                        open_.discard(n)
                        continue
                except BlockingIOError:
                    pass
                except OSError:
                    open_.discard(n)
                    continue
                with contextlib.suppress(OSError):
                    slow[n].send(b"X")
            t = time.monotonic()
            client.get(f"{API}/hello")
            waits.append(time.monotonic() - t)
            time.sleep(max(0.0, 1.0 - (time.monotonic() - t)))
        cut_after = time.monotonic() - start
        for sock in slow:
            sock.close()
    return [
        Figure(
            AREA,
            "slowloris (300 heads at 1 byte/s): connections still open",
            len(open_),
            "",
            0,
            note=f"all cut after {cut_after:.0f} s (head limit {HEAD_TIMEOUT_S:g} s)",
        ),
        Figure(
            AREA,
            "slowloris: a working client's slowest request meanwhile",
            max(waits) * 1000,
            "ms",
            1000,
            note=f"median {statistics.median(waits) * 1000:.1f} ms",
        ),
    ]


# -- 7. Vite killed, the dev server killed -------------------------------------------------------------


def _vite_faults(tmp: Path) -> list[Figure]:
    root = _vite_project(tmp / "vite")
    outcomes = {"ok": 0, "502": 0, "empty": 0, "cut": 0, "other": 0}
    others: list[str] = []
    lock = threading.Lock()
    with dev_server(root, wait_vite=True) as server:
        stop = threading.Event()

        def fetch_loop() -> None:
            while not stop.is_set():
                connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
                try:
                    connection.request("GET", f"/src/m{random.randrange(MODULES):02d}.js")
                    answer = connection.getresponse()
                    body = answer.read()
                    kind = "ok" if answer.status == 200 else "other"
                    if answer.status == 502 and json.loads(body).get("error") == "vite_unavailable":
                        kind = "502"
                    elif kind == "other":
                        others.append(f"HTTP {answer.status} {body[:80]!r}")
                except http.client.RemoteDisconnected:
                    kind = "empty"
                except (http.client.IncompleteRead, ConnectionResetError):
                    kind = "cut"
                except (OSError, http.client.HTTPException, ValueError) as exc:
                    kind = "other"
                    others.append(repr(exc))
                finally:
                    connection.close()
                with lock:
                    outcomes[kind] += 1

        fetchers = [threading.Thread(target=fetch_loop) for _ in range(4)]
        for thread in fetchers:
            thread.start()
        for restart in range(1, 4):
            time.sleep(1.0)
            os.kill(hello(server)["vite"]["pid"], signal.SIGKILL)
            wait_vite_ready(server, restarts=restart)
        time.sleep(1.0)
        stop.set()
        for thread in fetchers:
            thread.join(90)
        vite = hello(server)["vite"]["pid"]
        child = int((root / "plugin-child.pid").read_text())
        server.stop(signal.SIGKILL)
        deadline = time.monotonic() + 10
        while (pid_alive(vite) or pid_alive(child)) and time.monotonic() < deadline:
            time.sleep(0.05)
        survivors = int(pid_alive(vite)) + int(pid_alive(child))
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
    total = sum(outcomes.values())
    return [
        Figure(
            AREA,
            "Vite SIGKILLed 3× under 4 fetchers: requests",
            total,
            "",
            note=f"{outcomes['ok']} ok, {outcomes['502']} 502 vite_unavailable, {outcomes['cut']} cut mid-answer",
        ),
        Figure(AREA, "Vite killed: empty replies (no status at all)", outcomes["empty"], "", 0),
        Figure(
            AREA, "Vite killed: other failures", outcomes["other"], "", 0, note="; ".join(sorted(set(others)))[:200]
        ),
        Figure(AREA, "dev server SIGKILLed: Vite or its plugin's child still alive after 10 s", survivors, "", 0),
    ]


def run(minutes: float) -> list[Figure]:
    phases: list[Callable[[Path], list[Figure]]] = [
        lambda tmp: _load(tmp, minutes),
        lambda tmp: _kills(tmp, max(5, round(10 * minutes))),
        _emfile,
        _disk_full,
        _hostile,
        _slowloris,
        _vite_faults,
    ]
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="pix3-soak-dev-") as folder:
        for n, phase in enumerate(phases):
            tmp = Path(folder) / f"phase{n}"
            tmp.mkdir()
            figures.extend(phase(tmp))
    return figures
