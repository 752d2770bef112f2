"""Readiness pipes (docs/editor.md, "Cold start and reuse (performance)"): a daemon `pix3 editor`
starts says when it is up, and its death is heard at once, even when it left children behind."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pix3net.daemon import ready
from pix3net.daemon.devrecord import read_dev_info
from pix3net.devserver.control import spawn_dev_server, stop_dev_server
from pix3net.owner.control import StartingOwner
from pix3net.owner.options import OwnerOptions
from tests.support.chrome import fake_chrome_wrapper
from tests.support.pix3 import pix3_env
from tests.support.ports import free_port
from tests.support.processes import pid_alive, wait_gone
from tests.support.projects import make_project

LONG = 20.0  # nothing here should take more than a fraction of this


def _child(pipe: ready.Pipe, code: str) -> subprocess.Popen[bytes]:
    env = pix3_env()
    pipe.child_env(env)
    child = subprocess.Popen([sys.executable, "-c", code], env=env, pass_fds=(pipe.write_fd,))
    pipe.spawned()
    return child


def _heard_within(pipe: ready.Pipe, seconds: float) -> float | None:
    start = time.monotonic()
    deadline = start + seconds
    while not pipe.heard and time.monotonic() < deadline:
        ready.wait([pipe], deadline - time.monotonic())
    return time.monotonic() - start if pipe.heard else None


def test_take_needs_a_pipe_and_makes_it_close_on_exec(tmp_path: Path) -> None:
    assert ready.take({}) is None
    assert ready.take({ready.ENV: "x"}) is None
    with open(tmp_path / "plain", "w") as plain:  # not a pipe: nobody listens there
        os.set_inheritable(plain.fileno(), True)
        env = {ready.ENV: str(plain.fileno())}
        assert ready.take(env) is None and env == {}
    read_fd, write_fd = os.pipe()
    try:
        os.set_inheritable(write_fd, True)
        env = {ready.ENV: str(write_fd), "OTHER": "1"}
        assert ready.take(env) == write_fd
        assert env == {"OTHER": "1"}  # gone, so no child of the daemon sees it
        assert not os.get_inheritable(write_fd)
        ready.say_ready(write_fd)
        assert os.read(read_fd, 8) == ready.READY
        assert os.read(read_fd, 8) == b""  # and closed
    finally:
        os.close(read_fd)


def test_ready_is_heard_at_once_while_the_child_lives_on() -> None:
    pipe = ready.Pipe()
    child = _child(
        pipe, "import time; from pix3net.daemon import ready; fd = ready.take(); ready.say_ready(fd); time.sleep(60)"
    )
    try:
        assert _heard_within(pipe, LONG) is not None
        assert child.poll() is None  # the byte woke us, not the end of the pipe
    finally:
        child.kill()
        child.wait()


GRANDCHILD = """
import subprocess, sys
from pix3net.daemon import ready
fd = ready.take() if sys.argv[1] == "take" else None
grandchild = subprocess.Popen(["sleep", "60"], close_fds=False)  # as careless as a child can be
print(grandchild.pid, flush=True)
"""


@pytest.mark.parametrize("take", [True, False])
def test_a_death_before_ready_is_heard_even_with_a_grandchild_alive(take: bool) -> None:
    """The daemons spawn Chrome or Vite: once the pipe is taken, none of them holds it, so the
    daemon's death is the end of the pipe. (Not taken, the grandchild holds it: the control.)"""
    pipe = ready.Pipe()
    env = pix3_env()
    pipe.child_env(env)
    child = subprocess.Popen(
        [sys.executable, "-c", GRANDCHILD, "take" if take else "keep"],
        env=env,
        pass_fds=(pipe.write_fd,),
        stdout=subprocess.PIPE,
    )
    pipe.spawned()
    assert child.stdout is not None
    grandchild = int(child.stdout.readline())
    try:
        assert child.wait(LONG) == 0
        assert pid_alive(grandchild)
        if take:
            assert _heard_within(pipe, LONG) is not None
        else:
            assert _heard_within(pipe, 1.0) is None
    finally:
        os.kill(grandchild, 9)
        wait_gone(grandchild)
        child.stdout.close()
        pipe.close()


def test_the_dev_server_says_ready_once_its_record_answers(tmp_path: Path, pix3_home: Path) -> None:
    root = make_project(tmp_path / "game")
    starting = spawn_dev_server(root, free_port(), None)
    assert starting.ready is not None
    try:
        assert _heard_within(starting.ready, LONG) is not None
        info = read_dev_info(root)
        assert info is not None and info.pid == starting.child.pid  # written before the byte
        assert starting.poll() == info  # and it answers: the first look after the byte is the last
    finally:
        stop_dev_server(root)
        starting.child.wait(LONG)


def test_the_owner_says_ready_once_its_proxy_listens(tmp_path: Path, pix3_home: Path) -> None:
    from pix3net.clients import probe

    wrapper = fake_chrome_wrapper(tmp_path)
    options = OwnerOptions(str(wrapper), free_port(), str(tmp_path / "profile"), "about:blank", True)
    starting = StartingOwner(pix3_home, options, pix3_env())
    try:
        assert _heard_within(starting.ready, LONG) is not None
        assert (pix3_home / "chrome.json").exists()
        assert starting.check(probe.proves(options.port, starting.token)) is not None
    finally:
        starting.stop()
        wait_gone(starting.pid)


def test_an_owner_that_cannot_start_chrome_is_heard_at_once(tmp_path: Path, pix3_home: Path) -> None:
    options = OwnerOptions(str(tmp_path / "no-chrome"), free_port(), str(tmp_path / "profile"), "about:blank", True)
    starting = StartingOwner(pix3_home, options, pix3_env())
    try:
        assert _heard_within(starting.ready, LONG) is not None
        assert not (pix3_home / "chrome.json").exists()
    finally:
        starting.stop()
        wait_gone(starting.pid)
