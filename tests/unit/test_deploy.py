"""deploy/: what can be checked on this machine without a container runtime (deploy/README.md).

- the systemd user units: `systemd-analyze --user verify` (a private XDG_RUNTIME_DIR), nothing
  said; the Chrome owner's ExecStart options are options the owner accepts;
- the Dockerfile: Docker's own parser (the `dockerfile` package wraps BuildKit's), known
  instructions, FROM first, JSON-form ENTRYPOINT/CMD, a non-root USER, every COPY source present;
  its Debian packages exist in Debian 12 when this machine is one;
- the Chrome wrapper (the image's PIX3_CHROME): as a non-root user it keeps Chrome's sandbox when
  a user namespace can be made and adds --no-sandbox (and says so) when it cannot; it starts the
  real Chromium here; the entry script says the same once, moves a HOME in the project away,
  leaves PIX3_CHROME alone and runs pix3;
- the GitHub workflow: its YAML and structure (4 shards, `--shard` matching the matrix and
  accepted by smoke's parser, the JUnit file always kept, the failures kept on failure).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import dockerfile  # type: ignore[import-not-found]  # a compiled module without type information
import pytest
from ruamel.yaml import YAML

from pix3net.commands.smoke.command import SYNTAX, SmokeArgs
from pix3net.owner.start import parse_options
from pix3tools.core.argv import parse
from tests.support.pix3 import REPO, pix3_env

DEPLOY = REPO / "deploy"
UNITS = ("pix3-dev-server@.service", "pix3-chrome-owner.service")
# Dockerfile instructions BuildKit knows (its reference); anything else fails a build.
INSTRUCTIONS = {"FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER",
                "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL", "MAINTAINER"}  # fmt: skip
CHROMIUM = "/usr/bin/chromium"


def _unit_copy(name: str, folder: Path) -> Path:
    """An instance of a template unit gets a name (a project path, escaped), as systemctl gives it."""
    target = folder / (name.replace("@.", "@tmp-game.") if "@." in name else name)
    shutil.copy(DEPLOY / name, target)
    return target


@pytest.mark.parametrize("name", UNITS)
def test_the_systemd_user_units_verify(name: str, tmp_path: Path) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    unit = _unit_copy(name, tmp_path)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    done = subprocess.run(
        ["systemd-analyze", "--user", "verify", str(unit)], capture_output=True, text=True, env=env, timeout=60
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_the_verify_step_fails_a_broken_unit(tmp_path: Path) -> None:
    """The check can fail: an unknown key and a command that does not exist are reported."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    broken = tmp_path / "broken.service"
    text = (DEPLOY / UNITS[1]).read_text().replace("Restart=", "Restartt=")
    broken.write_text(text.replace("ExecStart=/usr/bin/env", "ExecStart=/nonexistent/env"))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    done = subprocess.run(
        ["systemd-analyze", "--user", "verify", str(broken)], capture_output=True, text=True, env=env, timeout=60
    )
    assert "Unknown key 'Restartt'" in done.stderr and "/nonexistent/env" in done.stderr and done.returncode != 0


def _exec_start(name: str) -> list[str]:
    line = next(line for line in (DEPLOY / name).read_text().splitlines() if line.startswith("ExecStart="))
    return shlex.split(line.removeprefix("ExecStart=").replace("%h", "/home/u"))


def test_the_chrome_owner_unit_gives_options_the_owner_accepts() -> None:
    argv = _exec_start("pix3-chrome-owner.service")
    assert argv[:3] == ["/usr/bin/env", "pix3", "__chrome-owner"] and len(argv) == 4
    options = parse_options(argv[3:])
    assert options is not None
    assert (options.chrome, options.port, options.profile, options.headless) == (
        CHROMIUM, 9333, "/home/u/.pix3/chrome", True
    )  # fmt: skip
    assert _exec_start("pix3-dev-server@.service")[:3] == ["/usr/bin/env", "pix3", "__dev-server"]


def test_the_dockerfile_parses_into_a_buildable_shape() -> None:
    commands = dockerfile.parse_file(str(DEPLOY / "Dockerfile"))
    names = [c.cmd.upper() for c in commands]
    assert set(names) <= INSTRUCTIONS, set(names) - INSTRUCTIONS
    assert names[0] == "FROM" and commands[0].value[0].startswith("debian:bookworm")
    entry = [c for c in commands if c.cmd.upper() in ("ENTRYPOINT", "CMD")]
    assert [(c.cmd.upper(), c.json) for c in entry] == [("ENTRYPOINT", True), ("CMD", True)]
    assert entry[1].value == ("smoke", "--all")
    users = [c.value[0] for c in commands if c.cmd.upper() == "USER"]
    assert users and users[-1] not in ("root", "0")  # runs as a non-root user
    for copy in (c for c in commands if c.cmd.upper() == "COPY"):
        *sources, _ = copy.value
        for source in sources:  # the build context is the repository's root
            assert (REPO / source).exists(), source
    # process 1 is tini, which runs the script this repository ships: pix3 as process 1 ignored
    # `podman stop`'s SIGTERM (killed after the timeout) in a real build (deploy/README.md)
    assert entry[0].value == ("/usr/bin/tini", "--", "/usr/local/bin/pix3-entrypoint")
    # the Chrome pix3 starts is the sandbox-deciding wrapper, installed where PIX3_CHROME says
    env = dict(zip(*[iter(v for c in commands if c.cmd.upper() == "ENV" for v in c.value)] * 2, strict=True))
    copied = {c.value[-1]: c.value[0] for c in commands if c.cmd.upper() == "COPY"}
    assert copied[env["PIX3_CHROME"]] == "deploy/chromium"


def test_the_dockerfile_check_refuses_what_a_build_would() -> None:
    bad = dockerfile.parse_string("FROMM debian\nCOPY nowhere /x\n")
    assert {c.cmd.upper() for c in bad} - INSTRUCTIONS == {"FROMM"}
    assert not (REPO / bad[1].value[0]).exists()


def _debian_12() -> bool:
    try:
        return "VERSION_CODENAME=bookworm" in Path("/etc/os-release").read_text()
    except OSError:
        return False


def test_the_images_packages_are_debian_12s() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    match = re.search(r"--no-install-recommends \\\n(.*?)\\\n", text, re.S)
    assert match is not None
    packages = match.group(1).split()
    assert {"chromium", "python3", "python3-venv", "git", "tini"} <= set(packages)
    if _debian_12() and shutil.which("apt-cache"):  # on another system there is no Debian 12 index to ask
        done = subprocess.run(["apt-cache", "show", "--no-all-versions", *packages], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert sorted(re.findall(r"^Package: (\S+)$", done.stdout, re.M)) == sorted(packages)


def _shims(folder: Path, *, uid: int, userns: bool) -> dict[str, str]:
    """``id``, ``unshare`` and ``pix3`` on the PATH: a non-root user, a runtime that does or does
    not allow a user namespace, and a pix3 that prints what it was given."""
    folder.mkdir()
    scripts = {
        "id": f'#!/bin/sh\n[ "$1" = -u ] && echo {uid}\n',
        "unshare": f"#!/bin/sh\nexit {0 if userns else 1}\n",
        "pix3": '#!/bin/sh\necho "PIX3_CHROME=${PIX3_CHROME:-} args=$*"\n',
    }
    for name, text in scripts.items():
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)
    env = {key: value for key, value in os.environ.items() if key != "PIX3_CHROME"}
    return {**env, "PATH": f"{folder}:{os.environ['PATH']}"}


@pytest.mark.parametrize(
    ("uid", "userns", "sandboxed", "said"),
    [
        (1000, True, True, False),  # a user namespace can be made: Chrome keeps its sandbox
        (1000, False, False, True),  # none: Chrome would abort, so --no-sandbox, said on stderr
        (0, False, True, False),  # root: left to pix3, which adds --no-sandbox itself
    ],
)
def test_the_chrome_wrapper_keeps_the_sandbox_where_the_runtime_allows_it(
    tmp_path: Path, uid: int, userns: bool, sandboxed: bool, said: bool
) -> None:
    env = _shims(tmp_path / "bin", uid=uid, userns=userns)
    chrome = tmp_path / "bin" / "chromium"
    chrome.write_text('#!/bin/sh\necho "args=$*"\n')
    chrome.chmod(0o755)
    env["PIX3_CHROMIUM"] = str(chrome)
    done = subprocess.run(
        ["sh", str(DEPLOY / "chromium"), "--headless=new", "--remote-debugging-pipe"],
        capture_output=True, text=True, env=env, timeout=30,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    flags = "" if sandboxed else "--no-sandbox "
    assert done.stdout == f"args={flags}--headless=new --remote-debugging-pipe\n"
    assert ("runs without its sandbox" in done.stderr) is said


@pytest.mark.parametrize(("uid", "userns", "said"), [(1000, True, False), (1000, False, True), (0, False, False)])
def test_the_entry_script_says_once_when_chrome_will_run_without_its_sandbox(
    tmp_path: Path, uid: int, userns: bool, said: bool
) -> None:
    env = _shims(tmp_path / "bin", uid=uid, userns=userns)
    env["PIX3_CHROME"] = "/usr/local/bin/pix3-chromium"
    done = subprocess.run(
        ["sh", str(DEPLOY / "entrypoint.sh"), "smoke", "--all"], capture_output=True, text=True, env=env, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "PIX3_CHROME=/usr/local/bin/pix3-chromium args=smoke --all\n"  # left alone
    assert ("runs without its sandbox" in done.stderr) is said


@pytest.mark.parametrize(
    ("home", "kept"),
    [
        ("project", False),  # Podman: the working directory (it adds the user to /etc/passwd so)
        ("/", False),  # Docker: a user /etc/passwd does not know
        ("nowhere", False),  # a HOME that cannot be written
        ("home", True),  # the image's own user: /home/pix3
    ],
)
def test_the_entry_script_gives_an_unknown_user_a_home_outside_the_project(
    tmp_path: Path, home: str, kept: bool
) -> None:
    """`--user 1234:1234` got HOME=/project under Podman in a real run: Chrome and fontconfig wrote
    .config/ and .cache/ into the project. The script moves such a HOME to /tmp."""
    env = _shims(tmp_path / "bin", uid=4242, userns=True)
    (tmp_path / "bin" / "pix3").write_text('#!/bin/sh\necho "HOME=$HOME"\n')
    for folder in ("project", "home"):
        (tmp_path / folder).mkdir()
    env["HOME"] = home if home == "/" else str(tmp_path / home)
    done = subprocess.run(
        ["sh", str(DEPLOY / "entrypoint.sh"), "smoke"],
        capture_output=True, text=True, env=env, cwd=tmp_path / "project", timeout=30,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"HOME={env['HOME'] if kept else '/tmp/pix3-home-4242'}\n"
    if not kept:
        made = Path("/tmp/pix3-home-4242")
        assert made.is_dir() and made.stat().st_mode & 0o777 == 0o700
        made.rmdir()


def test_the_entry_script_runs_pix3_here(tmp_path: Path) -> None:
    """This machine is a plain Debian: the real `unshare` and `id`, and the checkout's pix3."""
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "pix3").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pix3net "$@"\n')
    (shim / "pix3").chmod(0o755)
    env = pix3_env({"PATH": f"{shim}:{os.environ['PATH']}"})
    done = subprocess.run(
        ["sh", str(DEPLOY / "entrypoint.sh"), "smoke", "--help"], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Usage: pix3 smoke [scene]")


def test_the_chrome_wrapper_starts_chromium() -> None:
    done = subprocess.run(
        [str(DEPLOY / "chromium"), "--version"],
        capture_output=True,
        text=True,
        env={**os.environ, "PIX3_CHROMIUM": CHROMIUM},
        timeout=30,
    )
    assert done.returncode == 0 and done.stdout.startswith("Chromium "), done.stdout + done.stderr


def _expression(values: dict[str, str], match: re.Match[str]) -> str:
    """A workflow's ``${{ name }}`` as the runner gives it to the job."""
    return values[match.group(1)]


def _workflow() -> dict[Any, Any]:
    data = YAML(typ="safe").load((DEPLOY / "github" / "pix3-smoke.yml").read_text())  # YAML 1.2: `on` is a key
    assert isinstance(data, dict)
    return data


def test_the_workflow_runs_four_shards_and_keeps_junit_and_failures() -> None:
    data = _workflow()
    assert set(data["on"]) == {"push", "pull_request"}
    [job] = data["jobs"].values()
    shards = job["strategy"]["matrix"]["shard"]
    assert shards == [1, 2, 3, 4] and job["strategy"]["fail-fast"] is False
    [smoke] = [step for step in job["steps"] if "pix3 smoke" in step.get("run", "")]
    junit = output = None
    seen: list[str] = []
    for shard in shards:  # what each job runs, with the matrix's and the job's values put in
        values = {"matrix.shard": str(shard), "env.SHARDS": str(job["env"]["SHARDS"])}
        run = re.sub(r"\$\{\{ *([\w.]+) *\}\}", partial(_expression, values), smoke["run"])
        argv = shlex.split(run)
        assert argv[:2] == ["pix3", "smoke"]
        parsed = SmokeArgs.of(parse(SYNTAX, argv[2:]))
        assert parsed.shard is not None and (parsed.shard.index, parsed.shard.total) == (shard, len(shards))
        assert parsed.all and parsed.junit_file and parsed.output
        seen.append(str(parsed.shard))
        junit, output = parsed.junit_file, parsed.output
    assert seen == ["1/4", "2/4", "3/4", "4/4"]
    uploads = [step for step in job["steps"] if str(step.get("uses", "")).startswith("actions/upload-artifact@")]
    kept = {step["with"]["path"].replace("${{ matrix.shard }}", "4"): step for step in uploads}
    assert set(kept) == {junit, output}
    assert kept[junit]["if"] == "${{ !cancelled() }}"  # the JUnit file: also when smoke failed
    assert kept[output]["if"] == "${{ failure() }}"  # the failures' files: when a scene failed
    assert all("${{ matrix.shard }}" in step["with"]["name"] for step in uploads)  # one name per job
    assert len({step["with"]["name"] for step in uploads}) == len(uploads)
