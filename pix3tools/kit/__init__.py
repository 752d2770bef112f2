"""`pix3 kit`: the agent kit (AGENTS.md, CLAUDE.md, skills) installed into a project.

The kit's content is ours (``data/``), expanded at run time with facts read from the code: the
usage of the commands this build dispatches, the gap kinds, the starter's npm scripts, and the
diagnostic codes and node types once their packages are present.

See docs/kit.md, "Generated from the code".
"""

from __future__ import annotations

from pix3tools.kit._api import install, install_plan, migrate
from pix3tools.kit._install import KitError, KitPlan, plan_install
from pix3tools.kit._migrate import is_retired_server, plan_migrate
from pix3tools.kit._source import Kit, load_kit
from pix3tools.kit._writes import WriteError, relative
from pix3tools.kit._yamledit import yaml_scalar

__all__ = [
    "Kit",
    "KitError",
    "KitPlan",
    "WriteError",
    "install",
    "install_plan",
    "is_retired_server",
    "load_kit",
    "migrate",
    "plan_install",
    "plan_migrate",
    "relative",
    "yaml_scalar",
]
