"""The kit's entry points for other commands (``pix3 new``) and the CLI: plan, apply, report."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from pix3tools.kit._install import KitPlan, plan_install, report, report_json
from pix3tools.kit._migrate import migrate_report, migrate_report_json, plan_migrate
from pix3tools.kit._source import Kit, load_kit
from pix3tools.kit._writes import apply, prune_empty_dirs

Log = Callable[[str], object]


def _home(home: Path | None) -> Path:
    if home is not None:
        return home
    from pix3tools.core import pix3_home

    return pix3_home()


def install_script_types(plan: KitPlan, *, home: Path | None, log: Log) -> None:
    """.pix3/types/ and .pix3/tsconfig.check.json, as ``pix3 check`` writes them (installing three's
    types into the ``$PIX3_HOME`` cache first when they are not there). Not all-or-nothing with the
    kit's files: they are a cache, and a failure here leaves the kit in place with a note."""
    if plan.script_types != "wanted":
        return
    from pix3tools.core.private import Refused
    from pix3tools.scripttypes import TypesUnavailable, prepare_types

    try:
        note = prepare_types(plan.root, _home(home), offline=False, who="pix3 kit", log=log)
    except TypesUnavailable as error:
        plan.script_types = "not-written"
        plan.notes.append(f".pix3/types/ was not written: three's types (@types/three) — {error.why}.")
        plan.todos.append(
            f"Run `{error.fix}`, then pix3 kit again (pix3 check writes .pix3/types/ too)."
            if error.fix
            else "Run pix3 kit again once three's types can be installed (pix3 check writes .pix3/types/ too)."
        )
        return
    except Refused as error:  # a link at .pix3 or .pix3/types: left alone, never written through
        plan.script_types = "not-written"
        plan.notes.append(f".pix3/types/ was not written: {error}")
        return
    plan.script_types = "written" if note else "current"


def install_plan(
    root: Path,
    *,
    update: bool = False,
    kit: Kit | None = None,
    durable: bool = True,
    home: Path | None = None,
    log: Log = sys.stderr.write,
) -> KitPlan:
    """Install (or update) the kit in ``root`` and return what was done."""
    plan = plan_install(root, kit or load_kit(), update=update)
    apply(plan.changes, root=root, durable=durable)
    install_script_types(plan, home=home, log=log)
    return plan


def install(
    root: Path, *, update: bool = False, kit: Kit | None = None, as_json: bool = False, home: Path | None = None
) -> str:
    plan = install_plan(root, update=update, kit=kit, home=home)
    return _json(report_json(plan)) if as_json else report(plan)


def migrate(root: Path, *, kit: Kit | None = None, as_json: bool = False, home: Path | None = None) -> str:
    plan = plan_migrate(root, kit or load_kit())
    apply(plan.kit.changes, root=root)
    for folder in plan.prune:
        prune_empty_dirs(folder, root / ".claude")
    install_script_types(plan.kit, home=home, log=sys.stderr.write)
    return _json(migrate_report_json(plan)) if as_json else migrate_report(plan)


def _json(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
