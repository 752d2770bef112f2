"""Manifest of a generated 10 000-file project vs hashing the same files in one plain loop.

Target (issue 3): ≤ 2×. Two rows: a cold manifest (fresh core, every file read and hashed,
plus the table, events and JSON-ready listing) and a warm `GET /__pix3/api/manifest` over
real HTTP on a running server (full rescan with the hash cache, the way the editor calls it).
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

import httpx
import trio

from tests.bench._report import Result, median_ms

FILES = 10_000
REPEAT = 7  # interleaved with the plain loop; medians (the machine is shared and noisy)


def generate(root: Path) -> list[str]:
    rng = random.Random(3)
    paths = []
    for n in range(FILES):
        folder = root / f"assets/group{n // 500:02d}/sub{(n // 50) % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"file{n:05d}.{('png', 'json', 'ts', 'txt')[n % 4]}"
        path.write_bytes(rng.randbytes(rng.randint(200, 8000)))
        paths.append(str(path))
    return paths


def plain_loop(paths: list[str]) -> None:
    for path in paths:
        with open(path, "rb") as handle:
            hashlib.sha256(handle.read()).hexdigest()


def cold_manifest(root: Path) -> None:
    from pix3net.devserver.files import FileCore

    frames: list[object] = []
    core = FileCore(root, emit=frames.append)
    files = core.manifest()["files"]
    assert len([f for f in files if f["kind"] == "file"]) == FILES


def timed(call: object, *args: object) -> float:
    start = time.perf_counter()
    call(*args)  # type: ignore[operator]
    return time.perf_counter() - start


async def http_manifest(root: Path, paths: list[str]) -> tuple[list[float], list[float]]:
    from tests.support.file_api import running

    ours: list[float] = []
    loop: list[float] = []
    async with running(root, watch=False) as harness, httpx.AsyncClient(base_url=harness.url, timeout=120) as client:
        for _ in range(REPEAT):
            loop.append(await trio.to_thread.run_sync(timed, plain_loop, paths))
            start = time.perf_counter()
            reply = await client.get("/__pix3/api/manifest")
            ours.append(time.perf_counter() - start)
            assert reply.status_code == 200
    return ours, loop


def run() -> list[Result]:
    folder = Path(tempfile.mkdtemp(prefix="bench-devfiles-"))
    try:
        paths = generate(folder)
        plain_loop(paths)  # warm the page cache for both sides
        cold: list[float] = []
        loop: list[float] = []
        for _ in range(REPEAT):
            loop.append(timed(plain_loop, paths))
            cold.append(timed(cold_manifest, folder))
        warm, warm_loop = trio.run(http_manifest, folder, paths)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return [
        Result(
            "devfiles", "manifest 10k files, cold (hash all) vs plain hash loop", median_ms(cold), median_ms(loop), 2.0
        ),
        Result(
            "devfiles",
            "GET /api/manifest 10k files, warm, HTTP vs plain loop",
            median_ms(warm),
            median_ms(warm_loop),
            2.0,
        ),
    ]


if __name__ == "__main__":
    for row in run():
        print(row, f"ratio={row.ratio:.2f}")
    os._exit(0)
