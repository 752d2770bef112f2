"""Editing `pix3project.yaml`: only `metadata.agentKit` / `metadata.pix3Hybrid` change, every other byte kept."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pix3tools.kit._yamledit import ManifestError, remove_metadata_key, set_agent_kit, yaml_scalar

KIT = "    version: 2.0.0\n    files:\n      - AGENTS.md\n"


def load(text: str) -> object:
    return YAML(typ="safe", pure=True).load(text)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "version: 1.0.0  # keep me\nmetadata:\n  projectName: 'A'\nautoloads: []\n",
            "version: 1.0.0  # keep me\nmetadata:\n  projectName: 'A'\n  agentKit:\n" + KIT + "autoloads: []\n",
        ),
        (
            "metadata:\n  agentKit:\n    version: 1.6.2\n    files: [x]\n  # about z\n  z: 1\n",
            "metadata:\n  agentKit:\n" + KIT + "  # about z\n  z: 1\n",
        ),
        ("version: 1.0.0", "version: 1.0.0\nmetadata:\n  agentKit:\n" + KIT),
        ("a: 1\nmetadata:\nb: 2\n", "a: 1\nmetadata:\n  agentKit:\n" + KIT + "b: 2\n"),
        ("metadata:\n    deep: 1\n", "metadata:\n    deep: 1\n    agentKit:\n" + KIT.replace("    ", "      ")),
    ],
)
def test_set_agent_kit_splices(before: str, after: str) -> None:
    assert set_agent_kit(before, "2.0.0", ["AGENTS.md"]) == after


def test_equal_value_is_not_rewritten() -> None:
    text = "metadata:\n  agentKit: {version: 2.0.0, files: [AGENTS.md]}\n"
    assert set_agent_kit(text, "2.0.0", ["AGENTS.md"]) == text


def test_flow_metadata_is_rewritten_alone() -> None:
    text = "# head\nmetadata: {projectName: X}\ntail: [1, 2]   # flow kept\n"
    new = set_agent_kit(text, "2.0.0", ["AGENTS.md"])
    assert new.startswith("# head\nmetadata:\n  projectName: X\n  agentKit:\n")
    assert new.endswith("tail: [1, 2]   # flow kept\n")


@pytest.mark.parametrize("text", ["metadata: [unclosed\n", "- a list\n", "metadata: 3\n"])
def test_refusals(text: str) -> None:
    with pytest.raises(ManifestError):
        set_agent_kit(text, "2.0.0", [])


def test_remove_hybrid() -> None:
    text = "metadata:\n  projectId: p\n  pix3Hybrid:\n    cloudProjectId: c\n  agentKit: {version: 1}\nz: 1\n"
    new, removed = remove_metadata_key(text, "pix3Hybrid")
    assert new == "metadata:\n  projectId: p\n  agentKit: {version: 1}\nz: 1\n"
    assert removed == {"cloudProjectId": "c"}
    assert remove_metadata_key(new, "pix3Hybrid") == (new, None)


@pytest.mark.parametrize(
    "value", ["2.0.0-alpha.0", ".claude/skills/a/SKILL.md", "true", "1.5", "a: b", "#x", "", " s", "._", "._/x"]
)
def test_scalars_read_back(value: str) -> None:
    assert load(f"k: {yaml_scalar(value)}\n") == {"k": value}


_KEY = st.from_regex(r"[a-z][a-zA-Z0-9]{0,8}", fullmatch=True).filter(lambda k: k != "agentKit")
_VALUE = st.one_of(st.integers(), st.text(alphabet="abc xyz:#'\"-", max_size=12), st.booleans())


@given(
    top=st.dictionaries(_KEY.filter(lambda k: k != "metadata"), _VALUE, max_size=4),
    meta=st.dictionaries(_KEY, _VALUE, max_size=4),
    files=st.lists(st.from_regex(r"[a-zA-Z0-9._/-]{1,20}", fullmatch=True), max_size=4),
)
def test_only_agent_kit_changes(top: dict[str, object], meta: dict[str, object], files: list[str]) -> None:
    import io

    yaml = YAML()
    stream = io.StringIO()
    yaml.dump({**top, "metadata": meta or None, "after": 1}, stream)
    text = stream.getvalue()
    new = set_agent_kit(text, "2.0.0", files)
    data = load(new)
    assert isinstance(data, dict)
    assert data["metadata"]["agentKit"] == {"version": "2.0.0", "files": files}
    original = load(text)
    assert isinstance(original, dict)
    assert {k: v for k, v in data.items() if k != "metadata"} == {k: v for k, v in original.items() if k != "metadata"}
    # Every original line is still there, in order.
    kept = iter(new.splitlines())
    assert all(any(line == other for other in kept) for line in text.splitlines())


def test_a_value_ruamel_cannot_read_back_is_a_manifest_error() -> None:
    """ruamel resolves a plain `._` as a float and then fails in float(): the kit says the manifest
    cannot be read, it does not crash."""
    with pytest.raises(ManifestError, match="not valid YAML"):
        set_agent_kit("version: 1.0.0\nmetadata:\n  projectName: ._\n", "2.0.0", ["a"])


def test_crlf_files_stay_crlf() -> None:
    text = "version: 1.0.0\r\nmetadata:\r\n  projectName: A\r\nautoloads: []\r\n"
    new = set_agent_kit(text, "2.0.0", ["a"])
    assert (
        new
        == "version: 1.0.0\r\nmetadata:\r\n  projectName: A\r\n  agentKit:\r\n    version: 2.0.0\r\n    files:\r\n      - a\r\nautoloads: []\r\n"
    )
    assert set_agent_kit(new, "2.0.0", ["a"]) == new
