"""The entry path loads no heavy standard module and nothing third-party (docs/cli.md, "Version").

Each case runs a fresh interpreter from this checkout and compares the modules the entry path
loads with those of a bare start (same scaffolding, ``pass`` as the code).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The same scaffolding for the bare start and the entry: the entry's output is swallowed.
_LOADED = """\
import contextlib, io, json, sys
with contextlib.redirect_stdout(io.StringIO()):
    {code}
print(json.dumps(sorted(sys.modules)))
"""


def _modules(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _LOADED.format(code=code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return set(json.loads(done.stdout))


# Standard modules whose import costs a noticeable share of the interpreter's start (dataclasses
# alone: a fifth of it, because it brings inspect, dis, ast and tokenize).
HEAVY = frozenset({"dataclasses", "inspect", "dis", "ast", "tokenize", "asyncio", "concurrent", "email"})

ENTRY_PATHS = [
    "import pix3net.cli",
    "import pix3net.cli; pix3net.cli.main(['--version'])",
    "import pix3net.cli; pix3net.cli.main(['help'])",
    "import pix3net.cli; pix3net.cli.main([])",
    "import pix3tools.core.runner",
    # A cold `pix3 editor` waits for Chrome: what the editor loads before it spawns the owner, and
    # what the owner loads before it spawns Chrome (docs/editor.md, "Cold start and reuse").
    "import pix3net.commands.editor.command, pix3net.devserver.control, pix3net.commands.editor.chromestep, pix3net.commands.editor.together",
    "import pix3net.owner.command",
    # `pix3 editor --status`: a few loopback requests and /proc.
    "import pix3net.clients.ownerstatus",
]


@pytest.mark.parametrize("code", ENTRY_PATHS)
def test_the_entry_path_loads_no_heavy_or_third_party_module(code: str) -> None:
    bare = _modules("pass")
    added = _modules(code) - bare
    third_party = sorted(
        name for name in added if name.split(".")[0] not in sys.stdlib_module_names | {"pix3net", "pix3tools"}
    )
    heavy = sorted(name for name in added if name.split(".")[0] in HEAVY)
    assert (third_party, heavy) == ([], []), (
        f"the entry path loads {third_party + heavy} (all it adds: {sorted(added)})"
    )
