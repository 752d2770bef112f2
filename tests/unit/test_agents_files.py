"""The launch, the `--config` file and the two project-file formats (docs/agent-setup.md,
"What is written" and "The two file formats")."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from pix3net.commands.agentsetup import jsonfile, tomlfile
from pix3net.commands.agentsetup.known import CLAUDE, CODEX, PI
from pix3net.commands.agentsetup.mcpentry import install
from pix3net.commands.agentsetup.mcplaunch import (
    CHROME_DEVTOOLS_MCP_VERSION,
    config_path,
    config_text,
    mcp_launch,
    write_config,
)
from pix3net.commands.agentsetup.stale import stale_configs
from pix3tools.core.argv import js_port

TOKEN = "t" * 43


def test_launch_is_pinned_and_names_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "home-default" / "cdp-mcp.json"
    launch = mcp_launch(config, "linux")
    assert launch.command == "npx"
    assert launch.args == (
        "-y",
        "chrome-devtools-mcp@1.11.0",
        "--categoryExperimentalThirdParty=true",
        "--experimentalVision=true",
        "--no-usage-statistics",
        f"--config={config}",
    )
    assert mcp_launch(config, "linux", usage_statistics=True).args == tuple(
        a for a in launch.args if a != "--no-usage-statistics"
    )
    windows = mcp_launch(config, "win32")
    assert windows.command == "cmd"
    assert windows.args[:3] == ("/c", "npx", "-y")
    assert CHROME_DEVTOOLS_MCP_VERSION == "1.11.0"


def test_config_file_written_unchanged_updated_and_narrowed(tmp_path: Path) -> None:
    path = tmp_path / "home" / "cdp-mcp.json"
    assert write_config(path, 9333, TOKEN) == "written"
    data = json.loads(path.read_text())
    assert list(data) == ["wsEndpoint", "wsHeaders"]
    assert data["wsEndpoint"] == "ws://127.0.0.1:9333/pix3"
    assert json.loads(data["wsHeaders"]) == {"Authorization": f"Bearer {TOKEN}"}
    assert path.read_text() == json.dumps(data, indent=2) + "\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert write_config(path, 9333, TOKEN) == "unchanged"
    assert write_config(path, 9335, TOKEN) == "updated"
    assert "ws://127.0.0.1:9335/pix3" in path.read_text()
    path.chmod(0o644)
    assert write_config(path, 9335, TOKEN) == "unchanged"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["cdp-mcp.json"]  # no temp file left


def test_fresh_install_then_idempotent(tmp_path: Path) -> None:
    launch = mcp_launch(tmp_path / "cdp-mcp.json", "linux")
    assert [install(tmp_path, a, launch, repair=False).action for a in (CLAUDE, CODEX)] == ["written", "written"]
    entry = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["pix3-browser"]
    assert entry == {"command": "npx", "args": list(launch.args)}
    toml = (tmp_path / ".codex" / "config.toml").read_text()
    assert toml == tomlfile.table(launch)
    assert "tool_timeout_sec = 300" in toml and "startup_timeout_sec = 20" in toml
    before = [(tmp_path / f).read_bytes() for f in (".mcp.json", ".codex/config.toml")]
    assert [install(tmp_path, a, launch, repair=False).action for a in (CLAUDE, CODEX)] == ["unchanged", "unchanged"]
    assert [(tmp_path / f).read_bytes() for f in (".mcp.json", ".codex/config.toml")] == before
    assert not (tmp_path / ".mcp.json.bak").exists()


def test_other_servers_and_bytes_kept(tmp_path: Path) -> None:
    launch = mcp_launch(tmp_path / "cdp-mcp.json", "linux")
    (tmp_path / ".mcp.json").write_text(json.dumps({"note": 1, "mcpServers": {"other": {"command": "x"}}}))
    old = '# my codex\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n\n[profiles.fast]\nmodel = "o4-mini"\n'
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "config.toml").write_text(old)
    for agent in (CLAUDE, CODEX):
        install(tmp_path, agent, launch, repair=False)
    data = json.loads((tmp_path / ".mcp.json").read_text())
    assert list(data) == ["note", "mcpServers"] and data["note"] == 1
    assert list(data["mcpServers"]) == ["other", "pix3-browser"]
    text = (tmp_path / ".codex" / "config.toml").read_text()
    assert text.startswith(old) and text.count("[mcp_servers.pix3-browser]") == 1


def test_toml_table_in_the_middle_is_replaced_exactly() -> None:
    launch = mcp_launch("/abs/.pix3/cdp-mcp.json", "linux")
    old = (
        'model = "o3"\n\n[mcp_servers.pix3-browser]\ncommand = "old"\nargs = []\n\n[profiles.fast]\nmodel = "o4-mini"\n'
    )
    table = tomlfile.table(launch)
    assert tomlfile.render(old, launch) == f'model = "o3"\n\n{table}\n[profiles.fast]\nmodel = "o4-mini"\n'
    assert table.splitlines()[2] == (
        'args = ["-y", "chrome-devtools-mcp@1.11.0", "--categoryExperimentalThirdParty=true",'
        ' "--experimentalVision=true", "--no-usage-statistics", "--config=/abs/.pix3/cdp-mcp.json"]'
    )


def test_toml_append_separators() -> None:
    launch = mcp_launch("/c.json", "linux")
    table = tomlfile.table(launch)
    assert tomlfile.render("", launch) == table
    assert tomlfile.render("a = 1\n\n", launch) == "a = 1\n\n" + table
    assert tomlfile.render("a = 1\n", launch) == "a = 1\n\n" + table
    assert tomlfile.render("a = 1", launch) == "a = 1\n\n" + table
    # the quoted header is another table to us (the reference does not find it either)
    assert tomlfile.current('[mcp_servers."pix3-browser"]\ncommand = "npx"\n') is None


def test_toml_comparison_ignores_comments_and_indentation() -> None:
    launch = mcp_launch("/c.json", "linux")
    lines = tomlfile.table(launch).splitlines()
    decorated = "\n".join([lines[0], "# ours", "", *("  " + line for line in lines[1:])]) + "\n"
    assert tomlfile.current(decorated) == tomlfile.expected(launch)
    assert tomlfile.current(decorated.replace("= 20", "=20")) != tomlfile.expected(launch)


def test_json_comparison_counts_key_order_and_extra_keys(tmp_path: Path) -> None:
    launch = mcp_launch("/c.json", "linux")
    entry = jsonfile.entry_of(launch)
    swapped = json.dumps({"mcpServers": {"pix3-browser": {"args": entry["args"], "command": "npx"}}})
    extra = json.dumps({"mcpServers": {"pix3-browser": {**entry, "env": {}}}})
    assert jsonfile.current(swapped) != jsonfile.expected(launch)
    assert jsonfile.current(extra) != jsonfile.expected(launch)
    assert jsonfile.current("not json") is None
    assert jsonfile.render("[1, 2]", launch) == json.dumps({"mcpServers": {"pix3-browser": entry}}, indent=2) + "\n"


def test_drift_then_repair_with_backup(tmp_path: Path) -> None:
    launch = mcp_launch(tmp_path / "cdp-mcp.json", "linux")
    for agent in (CLAUDE, CODEX, PI):
        install(tmp_path, agent, launch, repair=False)
    mcp = tmp_path / ".mcp.json"
    mcp.write_text(mcp.read_text().replace("1.11.0", "1.9.0"))
    toml = tmp_path / ".codex" / "config.toml"
    toml.write_text(toml.read_text().replace("cdp-mcp.json", "other.json"))
    pi = tmp_path / ".pi" / "mcp.json"
    pi.write_text(pi.read_text().replace("--experimentalVision=true", "--x"))
    drifted = {p: p.read_text() for p in (mcp, toml, pi)}
    outcomes = [install(tmp_path, a, launch, repair=False) for a in (CLAUDE, CODEX, PI)]
    assert [o.action for o in outcomes] == ["drift", "drift", "drift"]
    assert "1.9.0" in (outcomes[0].current or "")
    assert {p: p.read_text() for p in drifted} == drifted
    outcomes = [install(tmp_path, a, launch, repair=True) for a in (CLAUDE, CODEX, PI)]
    assert [o.action for o in outcomes] == ["repaired", "repaired", "repaired"]
    assert [o.backup for o in outcomes] == [".mcp.json.bak", ".codex/config.toml.bak", ".pi/mcp.json.bak"]
    for path, text in drifted.items():
        assert path.with_name(path.name + ".bak").read_text() == text
    assert [install(tmp_path, a, launch, repair=False).action for a in (CLAUDE, CODEX, PI)] == ["unchanged"] * 3


def test_staleness_p1_entry_then_config_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = config_path(home, "claude-code")
    launch = mcp_launch(config)
    p1 = [*launch.args[:4], "--browserUrl=http://127.0.0.1:9333"]
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"pix3-browser": {"command": "npx", "args": p1}}}))
    assert stale_configs(tmp_path, home, 9333, TOKEN) == [".mcp.json"]
    outcome = install(tmp_path, CLAUDE, launch, repair=False)
    assert outcome.action == "drift" and "--browserUrl=" in (outcome.current or "")
    install(tmp_path, CLAUDE, launch, repair=True)
    assert "--browserUrl" not in (tmp_path / ".mcp.json").read_text()
    assert stale_configs(tmp_path, home, 9333, TOKEN) == [str(config)]  # config missing
    write_config(config, 9334, TOKEN, "claude-code")
    assert stale_configs(tmp_path, home, 9333, TOKEN) == [str(config)]
    write_config(config, 9333, "o" * 43, "claude-code")
    assert stale_configs(tmp_path, home, 9333, TOKEN) == [str(config)]
    write_config(config, 9333, TOKEN)  # no name in the endpoint: another file
    assert stale_configs(tmp_path, home, 9333, TOKEN) == [str(config)]
    write_config(config, 9333, TOKEN, "claude-code")
    assert stale_configs(tmp_path, home, 9333, TOKEN) == []
    # the user asked for usage statistics: that launch reaches this proxy too
    install(tmp_path, CLAUDE, mcp_launch(config, usage_statistics=True), repair=True)
    assert "--no-usage-statistics" not in (tmp_path / ".mcp.json").read_text()
    assert stale_configs(tmp_path, home, 9333, TOKEN) == []
    # the 1.10.1 launch before it is another launch
    old = json.loads((tmp_path / ".mcp.json").read_text())
    old["mcpServers"]["pix3-browser"]["args"][1] = "chrome-devtools-mcp@1.10.1"
    (tmp_path / ".mcp.json").write_text(json.dumps(old))
    assert stale_configs(tmp_path, home, 9333, TOKEN) == [".mcp.json"]


def test_staleness_p2_entries(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = config_path(home, "claude-code")
    codex_config = config_path(home, "codex")
    write_config(config, 9333, TOKEN, "claude-code")
    write_config(codex_config, 9333, TOKEN, "codex")
    launches = {CLAUDE: mcp_launch(config), CODEX: mcp_launch(codex_config)}
    p2 = mcp_launch("x", "linux")
    p2_args = [
        *p2.args[:4],
        "--wsEndpoint=ws://127.0.0.1:9333/pix3",
        '--wsHeaders={"Authorization":"Bearer ' + TOKEN + '"}',
    ]
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"pix3-browser": {"command": "npx", "args": p2_args}}})
    )
    (tmp_path / ".codex").mkdir()
    args = ", ".join(json.dumps(a) for a in p2_args)
    (tmp_path / ".codex" / "config.toml").write_text(f'[mcp_servers.pix3-browser]\ncommand = "npx"\nargs = [{args}]\n')
    assert stale_configs(tmp_path, home, 9333, TOKEN) == [".mcp.json", ".codex/config.toml"]
    assert [install(tmp_path, a, launches[a], repair=False).action for a in (CLAUDE, CODEX)] == ["drift", "drift"]
    assert [install(tmp_path, a, launches[a], repair=True).action for a in (CLAUDE, CODEX)] == ["repaired"] * 2
    for name, path in ((".mcp.json", config), (".codex/config.toml", codex_config)):
        text = (tmp_path / name).read_text()
        assert TOKEN not in text and "--wsHeaders" not in text and f"--config={path}" in text
        assert TOKEN in (tmp_path / (name + ".bak")).read_text()
    assert stale_configs(tmp_path, home, 9333, TOKEN) == []


def test_config_text_is_what_the_file_holds() -> None:
    text = config_text(9333, TOKEN)
    assert text.endswith("}\n") and '"wsHeaders": "{\\"Authorization\\":\\"Bearer ' + TOKEN + '\\"}"' in text
    # Each agent's file names it in the endpoint: the proxy's views show the agent, not its library.
    assert '"wsEndpoint": "ws://127.0.0.1:9333/pix3?client=codex"' in config_text(9333, TOKEN, "codex")
    assert config_path(Path("/h"), "pi", remote=True) == Path("/h/remote-cdp-pi.json")


def test_parse_port_reads_like_js_number() -> None:
    assert [js_port(v) for v in ("9333", " 9333 ", "0x10", "1e3", "9333.0")] == [9333, 9333, 16, 1000, 9333]
    assert [js_port(v) for v in ("x", "", "0", "65536", "1.5", "1_000", "inf", "-1")] == [None] * 8


def test_staleness_line_names_files_and_the_config(tmp_path: Path) -> None:
    from pix3net.commands.agentsetup.stale import staleness_line

    home = tmp_path / "home"
    config = config_path(home, "claude-code")
    launch = mcp_launch(config)
    assert staleness_line(tmp_path, home, 9333, TOKEN) is None  # no entries: nothing is stale
    install(tmp_path, CLAUDE, launch, repair=False)
    assert staleness_line(tmp_path, home, 9333, TOKEN) == (
        f"{config} (what chrome-devtools-mcp reads) holds another port or token:"
        " run `pix3 agent-setup --repair`, then start a new agent thread."
    )
    write_config(config, 9333, TOKEN, "claude-code")
    assert staleness_line(tmp_path, home, 9333, TOKEN) is None
    other = mcp_launch(tmp_path / "elsewhere.json")
    for agent in (CODEX, PI):
        install(tmp_path, agent, other, repair=False)
    assert staleness_line(tmp_path, home, 9333, TOKEN) == (
        ".codex/config.toml and .pi/mcp.json have a pix3-browser entry that does not reach this Chrome"
        " (an older launch: another port, another token, the token on its command line):"
        " run `pix3 agent-setup --repair`, then start a new agent thread."
    )
