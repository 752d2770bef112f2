"""The kit's entry points for other commands (``pix3 new``) and the CLI: plan, apply, report."""

from __future__ import annotations

import json
from pathlib import Path

from pix3tools.kit._install import KitPlan, plan_install, report, report_json
from pix3tools.kit._migrate import migrate_report, migrate_report_json, plan_migrate
from pix3tools.kit._source import Kit, load_kit
from pix3tools.kit._writes import apply, prune_empty_dirs


def install_plan(root: Path, *, update: bool = False, kit: Kit | None = None, durable: bool = True) -> KitPlan:
    """Install (or update) the kit in ``root`` and return what was done."""
    plan = plan_install(root, kit or load_kit(), update=update)
    apply(plan.changes, root=root, durable=durable)
    return plan


def install(root: Path, *, update: bool = False, kit: Kit | None = None, as_json: bool = False) -> str:
    plan = install_plan(root, update=update, kit=kit)
    return _json(report_json(plan)) if as_json else report(plan)


def migrate(root: Path, *, kit: Kit | None = None, as_json: bool = False) -> str:
    plan = plan_migrate(root, kit or load_kit())
    apply(plan.kit.changes, root=root)
    for folder in plan.prune:
        prune_empty_dirs(folder, root / ".claude")
    return _json(migrate_report_json(plan)) if as_json else migrate_report(plan)


def _json(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
