"""The dev server binds its public sockets before it imports trio and its stack (docs/devserver.md,
"Running it"): a Chrome launched on the editor's address meanwhile waits in the backlog, never refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.pix3 import pix3_env


def test_the_sockets_are_bound_before_the_stack_loads(tmp_path: Path) -> None:
    (tmp_path / "pix3project.yaml").write_text("version: 1.0.0\n")
    code = (
        "import sys\n"
        "import pix3net.devserver.command as command, pix3net.devserver.front.bind as bind\n"
        "bound = []\n"
        "real = bind.choose_sockets\n"
        "def choose(port):\n"
        "    bound.append(sorted(m for m in ('trio', 'hypercorn', 'quart') if m in sys.modules))\n"
        "    raise bind.PortError('stop here')\n"
        "bind.choose_sockets = choose\n"
        "code = command.main(['--port', '1', '--project', sys.argv[1]])\n"
        "print(code, bound)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], env=pix3_env(), capture_output=True, text=True, check=False
    )
    assert done.stdout == "1 [[]]\n", done.stdout + done.stderr
    assert done.stderr == "pix3 __dev-server: stop here\n"
