"""`POST /__pix3/api/check` (ours): the dev server flushes its editor, then runs `pix3 check`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trio

from tests.support.devserver import DevServer, dev_server, fake_tab
from tests.support.node import seed_three_types
from tests.support.projects import make_project

pytestmark = pytest.mark.node  # the check runs the test clients' TypeScript

X = {"X-Pix3": "1"}
SCENE = "version: 1.0.0\nroot:\n  - id: main\n    type: Group2D\n    name: Main\n"


@pytest.fixture
def server(tmp_path: Path, node_modules: Path, typescript: Path) -> Iterator[DevServer]:
    root = make_project(
        tmp_path / "game",
        {
            "scenes/main.pix3scene": SCENE,
            "scripts/Rules.ts": "export const speed: number = 2;\n",
        },
    )
    env = {"PIX3_TYPESCRIPT": str(typescript), "PIX3_HOME": str(tmp_path / "home")}
    seed_three_types(tmp_path / "home", node_modules)  # no tsconfig.json: checked against three's types, cached
    with dev_server(root, env=env) as running:
        yield running


async def test_check_flushes_the_writer_then_reports(server: DevServer) -> None:
    async with (
        trio.open_nursery() as nursery,
        fake_tab(server, "tab-a", nursery) as tab,
        httpx.AsyncClient(base_url=server.url, headers=X, timeout=60) as client,
    ):
        await client.post("/__pix3/api/handover/claim", json={"writerId": "tab-a"})
        reply = await client.post("/__pix3/api/check", json={"hydrate": False})
        assert reply.status_code == 200
        report = reply.json()
        assert [r["kind"] for r in tab.requests] == ["flush"]
        assert list(report)[:5] == ["ok", "projectRoot", "errorCount", "warningCount", "level2"]
        assert report["ok"] is True, report["diagnostics"]
        assert report["typecheck"]["files"] == 1 and report["typecheck"]["mode"] == "pix3-types"
        assert {f["file"] for f in report["files"]} >= {"scenes/main.pix3scene", "scripts/Rules.ts"}
        assert f"editor at {server.url}/ flushed its unsaved scenes" in report["notes"]

        tab.answers["flush"] = {"ok": False, "reason": "gesture_in_progress"}
        report = (await client.post("/__pix3/api/check", json={"hydrate": False})).json()
        unsynced = [d for d in report["diagnostics"] if d["code"] == "E_EDITOR_UNSYNCED"]
        assert report["ok"] is False and len(unsynced) == 1
        assert "(gesture_in_progress)" in unsynced[0]["message"]

        skipped = (await client.post("/__pix3/api/check", json={"hydrate": False, "noSync": True})).json()
        assert skipped["ok"] is True and len(tab.requests) == 2


async def test_check_refuses_bad_input(server: DevServer) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        missing = await client.post("/__pix3/api/check", json={})
        assert missing.status_code == 403  # a mutation without X-Pix3
        bad = await client.post("/__pix3/api/check", headers=X, json={"offline": "yes"})
        assert (bad.status_code, bad.json()["error"]) == (400, "bad_check")
        broken = await client.post("/__pix3/api/check", headers=X, content=b"{")
        assert (broken.status_code, broken.json()["error"]) == (400, "bad_json")
