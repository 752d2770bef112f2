"""A real OpenSSH server on a free loopback port, for the Remote SSH tests: its own config, host
key and user key, and a home of its own for the sessions (the "remote host").

OpenSSH's client reads ``~/.ssh/config`` from the passwd home, not ``$HOME``, so "your machine"
gets an ``ssh`` on its PATH that adds ``-F <human home>/.ssh/config``: the printed lines run as
printed, against the config the user would have. The server sets ``HOME`` (and the PATH to a
``pix3`` and an ``npx`` of this checkout) for every session with ``SetEnv``, so the remote
host's ``~/.pix3`` is the remote home's, never the test runner's.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.support.ports import free_port
from tests.support.processes import wait_until

SSHD = "/usr/sbin/sshd"  # sshd must be started by its absolute path
PRIVSEP_DIR = "/run/sshd"  # Debian's sshd refuses to start as root without it (the service makes it)
HOST = "devbox"
NO_FORWARDS = "-o ClearAllForwardings=yes"


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


class Sshd:
    """The server, the human's ssh config (``Host devbox``) and the wrapper that reads it."""

    def __init__(self, folder: Path, remote_home: Path, human_home: Path, remote_path: str, pythonpath: str) -> None:
        if not Path(SSHD).exists() or shutil.which("ssh") is None:
            pytest.fail("OpenSSH is missing: apt-get install -y openssh-server openssh-client (just setup does)")
        if os.geteuid() == 0 and not Path(PRIVSEP_DIR).is_dir():
            os.makedirs(PRIVSEP_DIR, mode=0o755, exist_ok=True)
        folder.mkdir(parents=True)
        self.folder, self.remote_home, self.human_home = folder, remote_home, human_home
        _keygen(folder / "host_key")
        _keygen(folder / "user_key")
        (folder / "authorized_keys").write_bytes((folder / "user_key.pub").read_bytes())
        self.port = free_port()
        (folder / "sshd_config").write_text(
            f"ListenAddress 127.0.0.1\nPort {self.port}\nHostKey {folder / 'host_key'}\n"
            f"AuthorizedKeysFile {folder / 'authorized_keys'}\nPidFile none\nUsePAM no\nStrictModes no\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
            "AllowTcpForwarding yes\nGatewayPorts no\nLogLevel VERBOSE\n"
            f"SetEnv HOME={remote_home} PATH={remote_path} PYTHONPATH={pythonpath} PYTHONDONTWRITEBYTECODE=1\n"
        )
        host_key = (folder / "host_key.pub").read_text().split()
        (folder / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {host_key[0]} {host_key[1]}\n")
        self.log = folder / "sshd.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [SSHD, "-D", "-e", "-f", str(folder / "sshd_config")], stdout=log, stderr=subprocess.STDOUT
            )
        wait_until(lambda: listening(self.port) or self.process.poll() is not None, 10, "sshd to listen")
        if self.process.poll() is not None:
            raise AssertionError(f"sshd exited: {self.log.read_text()}")
        self.bin = folder / "human-bin"
        self.bin.mkdir()
        ssh = self.bin / "ssh"  # "your machine"'s ssh reads your ~/.ssh/config
        ssh.write_text(f'#!/bin/sh\nexec "{shutil.which("ssh")}" -F "{self.config}" "$@"\n')
        ssh.chmod(0o755)
        self.write_config([])

    @property
    def config(self) -> Path:
        return self.human_home / ".ssh" / "config"

    def write_config(self, extra: list[str]) -> None:
        """The human's ~/.ssh/config: ``Host devbox`` and the lines pix3 told them to add."""
        self.config.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        user = pwd.getpwuid(os.getuid()).pw_name
        lines = [
            f"Host {HOST}",
            "  HostName 127.0.0.1",
            f"  Port {self.port}",
            f"  User {user}",
            f"  IdentityFile {self.folder / 'user_key'}",
            "  IdentitiesOnly yes",
            f"  UserKnownHostsFile {self.folder / 'known_hosts'}",
            "  GlobalKnownHostsFile /dev/null",
            "  StrictHostKeyChecking yes",
            "  BatchMode yes",
            "  LogLevel ERROR",
            *(f"  {line.strip()}" for line in extra),
        ]
        self.config.write_text("\n".join(lines) + "\n")
        self.config.chmod(0o600)

    def human_env(self, base: Mapping[str, str]) -> dict[str, str]:
        """The human's shell: their HOME and the ssh that reads their config first on the PATH."""
        env = {k: v for k, v in base.items() if k not in ("PIX3_HOME", "SSH_CONNECTION", "SSH_CLIENT")}
        env["HOME"] = str(self.human_home)
        env["PATH"] = f"{self.bin}{os.pathsep}{base.get('PATH', '')}"
        return env

    def shell(self, line: str, env: Mapping[str, str], timeout: float = 90) -> subprocess.CompletedProcess[str]:
        """A line run by the human's shell, as printed."""
        return subprocess.run(
            ["/bin/sh", "-c", line], env=dict(env), capture_output=True, text=True, timeout=timeout, check=False
        )

    def remote(
        self, command: str, env: Mapping[str, str], cwd: Path, timeout: float = 90
    ) -> subprocess.CompletedProcess[str]:
        """``command`` in a terminal on the remote host, in ``cwd`` there: VS Code's terminal is
        another channel of the session that holds the forward, so this one asks for none."""
        return self.shell(f"ssh {NO_FORWARDS} {HOST} 'cd {cwd} && {command}'", env, timeout)

    @contextlib.contextmanager
    def session(self, env: Mapping[str, str], forward_port: int) -> Iterator[subprocess.Popen[bytes]]:
        """``ssh -N devbox`` (the VS Code connection) with the config's forwards, up until the block ends."""
        with open(self.folder / "session.log", "ab") as log:
            process = subprocess.Popen(["ssh", "-N", HOST], env=dict(env), stdin=subprocess.DEVNULL, stderr=log)
        try:
            wait_until(lambda: listening(forward_port) or process.poll() is not None, 20, "the SSH RemoteForward")
            assert process.poll() is None, (self.folder / "session.log").read_text()
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
                process.wait(10)
            wait_until(lambda: not listening(forward_port), 10, "the forward to close")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


def shim_bin(folder: Path, node_modules: Path) -> Path:
    """A folder with a ``pix3`` of this checkout and the ``npx`` that runs the pinned chrome-devtools-mcp."""
    from tests.support.mcp import npx_shim

    npx_shim(folder, node_modules)
    pix3 = folder / "pix3"
    pix3.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pix3net "$@"\n')
    pix3.chmod(0o755)
    return folder
