"""`pix3 agent-setup` as a real process (docs/agent-setup.md).

What a fresh project gets, which agents are chosen by default, older entries named (and repaired
with `--repair`), the port `pix3 editor` recorded, usage errors and no project, the three
agents' notes, and `--remote` without a token or with nothing listening.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from pix3net.wire.token import read_token
from tests.support.pix3 import run_pix3


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "game"
    root.mkdir()
    (root / "pix3project.yaml").write_text("version: 1.0.0\n")
    return root


def _setup(project: Path, home: Path, *args: str) -> tuple[int, str, str]:
    done = run_pix3("agent-setup", *args, cwd=project, env={"PIX3_HOME": str(home)})
    return done.returncode, done.stdout, done.stderr


def test_claude_in_a_fresh_project(project: Path, pix3_home: Path) -> None:
    code, out, err = _setup(project, pix3_home, "claude", "--project", str(project))
    assert (code, err) == (0, "")
    assert "chrome-devtools-mcp@1.11.0" in out
    config = pix3_home / "cdp-mcp-claude-code.json"
    args = json.loads((project / ".mcp.json").read_text())["mcpServers"]["pix3-browser"]["args"]
    assert "--categoryExperimentalThirdParty=true" in args
    assert args[-1] == f"--config={config}"
    token = read_token(pix3_home / "cdp-token")
    assert token is not None
    assert json.loads(config.read_text()) == {
        "wsEndpoint": "ws://127.0.0.1:9333/pix3?client=claude-code",
        "wsHeaders": json.dumps({"Authorization": f"Bearer {token}"}, separators=(",", ":")),
    }
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert token not in (project / ".mcp.json").read_text()
    assert "wrote .mcp.json" in out and "new thread" in out and token not in out
    assert not (project / ".codex").exists()

    code, out, _ = _setup(project, pix3_home, "claude")
    assert code == 0 and "up to date" in out and "new thread" not in out

    mcp = project / ".mcp.json"
    mcp.write_text(mcp.read_text().replace("cdp-mcp-claude-code.json", "other.json"))
    code, out, _ = _setup(project, pix3_home, "claude")
    assert code == 1 and "--repair" in out and "has a different pix3-browser entry —" in out
    code, out, _ = _setup(project, pix3_home, "claude", "--repair")
    assert code == 0 and "repaired .mcp.json (previous copy in .mcp.json.bak)" in out
    assert stat.S_IMODE((project / ".mcp.json.bak").stat().st_mode) == 0o600
    assert f"--config={config}" in mcp.read_text() and token not in mcp.read_text()
    assert f"Bearer {token}" in config.read_text()
    assert token not in out


def test_default_targets(project: Path, pix3_home: Path) -> None:
    code, out, _ = _setup(project, pix3_home)
    assert code == 0
    assert "Claude Code: wrote .mcp.json" in out and "Codex: wrote .codex/config.toml" in out
    assert "pi:" not in out
    # only the agents whose file exists, once one does
    (project / ".mcp.json").unlink()
    (project / ".pi").mkdir()
    (project / ".pi" / "mcp.json").write_text('{"mcpServers": {"other": {"command": "x"}}}\n')
    code, out, _ = _setup(project, pix3_home)
    assert code == 0
    assert "pi: wrote .pi/mcp.json" in out and "Codex: .codex/config.toml is up to date" in out
    # pi reads the file itself since 0.99, in a trusted project: the note says so, and how to trust.
    note = " ".join(out.split())
    assert "pi reads .pi/mcp.json itself" in note and "adapter" in note and "pi-mcp-adapter" not in note
    assert "only in a project it trusts" in note and "/trust" in note and "~/.pi/agent/trust.json" in note
    assert "`pi --approve`" in note
    assert "Claude Code" not in out.split("\n\n")[0]
    data = json.loads((project / ".pi" / "mcp.json").read_text())
    assert list(data["mcpServers"]) == ["other", "pix3-browser"]
    assert not (project / ".mcp.json").exists()


def test_p2_entry_is_named_and_repaired(project: Path, pix3_home: Path) -> None:
    token = "t" * 43
    (pix3_home / "cdp-token").write_text(token + "\n")
    args = [
        "-y",
        "chrome-devtools-mcp@1.11.0",
        "--wsEndpoint=ws://127.0.0.1:9333/pix3",
        '--wsHeaders={"Authorization":"Bearer ' + token + '"}',
    ]
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"pix3-browser": {"command": "npx", "args": args}}}))
    code, out, _ = _setup(project, pix3_home, "claude")
    assert code == 1 and "the CDP token on its command line" in out
    assert token not in out
    old = project / ".mcp.json.bak"
    old.write_text("an older backup\n")
    old.chmod(0o644)
    code, out, _ = _setup(project, pix3_home, "claude", "--repair")
    assert code == 0 and token not in out and token not in (project / ".mcp.json").read_text()
    # The copy still holds the token: 0600 (also over a wider old one), and the user is told.
    assert token in old.read_text() and stat.S_IMODE(old.stat().st_mode) == 0o600
    assert (
        "  Claude Code: repaired .mcp.json (previous copy in .mcp.json.bak, mode 0600 — it holds the CDP token:"
        " delete it)"
    ) in out.splitlines()


def test_p1_entry_is_named(project: Path, pix3_home: Path) -> None:
    entry = {"command": "npx", "args": ["--browserUrl=http://127.0.0.1:9333"]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"pix3-browser": entry}}))
    code, out, _ = _setup(project, pix3_home, "claude")
    assert code == 1 and "the P1 launch" in out


def test_recorded_port_and_its_move(project: Path, pix3_home: Path) -> None:
    record = {"port": 9337, "profile": str(pix3_home / "chrome")}
    (pix3_home / "chrome.json").write_text(json.dumps(record))
    code, out, _ = _setup(project, pix3_home, "codex")
    assert code == 0 and "ws://127.0.0.1:9337/pix3" in out and "the port it recorded" in out
    assert f"--config={pix3_home / 'cdp-mcp-codex.json'}" in (project / ".codex" / "config.toml").read_text()
    assert "ws://127.0.0.1:9337/pix3?client=codex" in (pix3_home / "cdp-mcp-codex.json").read_text()
    (pix3_home / "chrome.json").write_text(json.dumps({**record, "port": 9338}))
    code, out, _ = _setup(project, pix3_home, "codex")
    assert code == 0 and "updated" in out and "new thread" in out and "is up to date" in out
    assert "9338" in (pix3_home / "cdp-mcp-codex.json").read_text()
    code, out, _ = _setup(project, pix3_home, "codex", "--cdp-port", "9340")
    assert code == 0 and "ws://127.0.0.1:9340/pix3" in out


def test_outside_a_project_and_bad_arguments(tmp_path: Path, pix3_home: Path) -> None:
    code, out, err = _setup(tmp_path, pix3_home, "claude")
    assert code == 2 and "pix3project.yaml" in err and "or any parent folder" in err and out == ""
    code, _, err = _setup(tmp_path, pix3_home, "--project", str(tmp_path))
    assert code == 2 and "or any parent folder" not in err
    for args, message in (
        (["gemini"], 'agent-setup takes claude, codex or pi, not "gemini"'),
        (["--cdp-port", "x"], "--cdp-port needs a port"),
        (["--cdp-port"], "--cdp-port needs a port"),
        (["--project"], "--project needs a directory"),
        (["--project", "--repair"], "--project needs a directory"),
    ):
        code, out, err = _setup(tmp_path, pix3_home, *args)
        assert code == 2, args
        assert err.startswith(f"pix3 agent-setup: {message}\n\nUsage: pix3 agent-setup"), args
        assert out == ""
    assert not (pix3_home / "cdp-token").exists()


def test_all_three_agents_and_their_notes(project: Path, pix3_home: Path) -> None:
    code, out, _ = _setup(project, pix3_home, "codex", "claude", "pi")
    assert code == 0
    assert out.startswith("pix3-browser: chrome-devtools-mcp 1.11.0 at ws://127.0.0.1:9333/pix3")
    assert "  Codex: npx -y chrome-devtools-mcp@1.11.0 " in out
    assert "claude mcp add --scope user pix3-browser -- npx -y chrome-devtools-mcp@1.11.0" in out
    assert "Codex reads .codex/config.toml only in a project it trusts" in out


def test_remote_without_a_token_and_with_nothing_listening(project: Path, pix3_home: Path) -> None:
    from tests.support.ports import free_port

    code, out, err = _setup(project, pix3_home, "claude", "--remote")
    assert code == 1 and err.startswith("pix3 agent-setup --remote: no ~/.pix3/remote-cdp-token here.")
    assert not (project / ".mcp.json").exists() and not list(pix3_home.glob("remote-cdp-*.json"))

    token = "r" * 43
    (pix3_home / "remote-cdp-token").write_text(token + "\n")
    (pix3_home / "remote-cdp-token").chmod(0o644)
    port = free_port()
    code, out, err = _setup(project, pix3_home, "claude", "codex", "--remote", "--cdp-port", str(port))
    assert code == 0, err
    assert f"Port {port} does not answer with the proof of the token now (nothing listens); written anyway" in out
    for name, client in ((".mcp.json", "claude-code"), (".codex/config.toml", "codex")):
        config = pix3_home / f"remote-cdp-{client}.json"
        assert json.loads(config.read_text())["wsEndpoint"] == f"ws://127.0.0.1:{port}/pix3?client={client}"
        assert stat.S_IMODE(config.stat().st_mode) == 0o600
        text = (project / name).read_text()
        assert f"--config={config}" in text and token not in text
    assert stat.S_IMODE((pix3_home / "remote-cdp-token").stat().st_mode) == 0o600
    assert token not in out + err
    code, out, _ = _setup(project, pix3_home, "claude")  # the local launch is another entry
    assert code == 1 and "has a different pix3-browser entry" in out
    code, out, _ = _setup(project, pix3_home, "claude", "--remote", "--cdp-port", str(port))
    assert code == 0 and "up to date" in out


def test_usage_statistics_are_off_unless_asked_for(project: Path, pix3_home: Path) -> None:
    code, _, _ = _setup(project, pix3_home, "claude", "codex", "pi")
    assert code == 0
    claude = json.loads((project / ".mcp.json").read_text())["mcpServers"]["pix3-browser"]["args"]
    pi = json.loads((project / ".pi" / "mcp.json").read_text())["mcpServers"]["pix3-browser"]["args"]
    assert claude[:-1] == pi[:-1] and "--no-usage-statistics" in claude
    assert (claude[-1], pi[-1]) == (
        f"--config={pix3_home / 'cdp-mcp-claude-code.json'}",
        f"--config={pix3_home / 'cdp-mcp-pi.json'}",
    )
    assert '"--no-usage-statistics"' in (project / ".codex" / "config.toml").read_text()
    # asked for: the flag goes (an existing entry without it is another launch: --repair rewrites it)
    code, out, _ = _setup(project, pix3_home, "claude", "--usage-statistics")
    assert code == 1 and "has a different pix3-browser entry" in out
    code, _, _ = _setup(project, pix3_home, "claude", "--usage-statistics", "--repair")
    args = json.loads((project / ".mcp.json").read_text())["mcpServers"]["pix3-browser"]["args"]
    assert (
        code == 0
        and "--no-usage-statistics" not in args
        and args == [a for a in claude if a != "--no-usage-statistics"]
    )


@pytest.mark.parametrize(
    ("planted", "agent"),
    [(".mcp.json", "claude"), (".codex", "codex"), (".pi", "pi"), (".pi/mcp.json", "pi")],
)
def test_a_planted_link_is_never_written_through(project: Path, pix3_home: Path, planted: str, agent: str) -> None:
    """A cloned project can commit `.mcp.json` (or `.codex/`) as a link to a file (folder) of the
    user's: agent-setup refuses, names the link and writes nothing in the project."""
    outside = project.parent / "outside"
    outside.mkdir()
    precious = outside / "authorized_keys"
    precious.write_text("ssh-ed25519 AAAA user\n")
    link = project / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(precious if planted.endswith(".json") else outside)
    code, out, err = _setup(project, pix3_home, agent, "--repair")
    assert code == 1, out
    assert err.startswith(f"pix3 agent-setup: {link} is a symbolic link to "), err
    assert err.rstrip().endswith("Nothing was written in the project."), err
    assert sorted(p.name for p in outside.iterdir()) == ["authorized_keys"]
    assert precious.read_text() == "ssh-ed25519 AAAA user\n"
    assert link.is_symlink()


def test_a_planted_backup_link_is_replaced_not_written_through(project: Path, pix3_home: Path) -> None:
    """--repair copies the drifted file to `.mcp.json.bak`: a link planted there is replaced by
    our 0600 copy, and the file it pointed to is untouched."""
    outside = project.parent / "precious.txt"
    outside.write_text("mine\n")
    args = ["-y", "chrome-devtools-mcp@1.10.1", "--wsEndpoint=ws://127.0.0.1:9333/pix3"]
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"pix3-browser": {"command": "npx", "args": args}}}))
    (project / ".mcp.json.bak").symlink_to(outside)
    code, out, err = _setup(project, pix3_home, "claude", "--repair")
    assert (code, err) == (0, ""), out
    backup = project / ".mcp.json.bak"
    assert not backup.is_symlink() and stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert "chrome-devtools-mcp@1.10.1" in backup.read_text()
    assert outside.read_text() == "mine\n"


@pytest.mark.parametrize(
    "answer", [b"", b"SSH-2.0-squatter\r\n", b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"]
)
def test_a_port_held_by_something_else_is_never_written(project: Path, pix3_home: Path, answer: bytes) -> None:
    """The agent would send the token to the port written: a squatter that answers nothing,
    something that is not HTTP, or HTTP without our proof, is named with its pid, and nothing
    is written (docs/agent-setup.md, "What is written")."""
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen(8)
        port = squatter.getsockname()[1]

        def serve() -> None:
            with contextlib.suppress(OSError):
                while True:
                    client, _ = squatter.accept()
                    with client:
                        client.sendall(answer)

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        code, out, err = _setup(project, pix3_home, "claude", "--cdp-port", str(port))
        squatter.shutdown(socket.SHUT_RDWR)
    thread.join(5)
    assert code == 1, out + err
    assert err.startswith(f"pix3 agent-setup: port {port} is not our CDP proxy (port {port} is in use by something")
    assert f"pid {os.getpid()}, " in err and f"Stop what holds port {port}" in err
    assert not any(pix3_home.glob("cdp-mcp*.json")) and not (project / ".mcp.json").exists()
