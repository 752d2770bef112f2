"""A fast YAML 1.2 reader for `pix3 tree` (no line numbers: tree never reports a line).

ruamel.yaml's pure-Python parser reads a 200-node scene in ~270 ms here; libyaml (through
PyYAML's C parser) reads it in ~28 ms, and `pix3 tree` must finish within 3× `python3 -c pass`.
We keep the reference's semantics (the JS `yaml` package, YAML 1.2 core schema): `yes`/`on` stay
strings, `0o17` is octal, no timestamps, no `<<` merges, and a repeated mapping key is an error.
Without libyaml the same rules come from ruamel.yaml's pure parser (slower, same result).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["YamlError", "load_yaml"]


class YamlError(ValueError):
    """The text is not YAML; ``str()`` is one line, with the line number when known."""


def load_yaml(text: str) -> Any:
    """Parse one YAML document (an empty document is ``None``)."""
    loader = _c_loader()
    if loader is None:
        return _load_ruamel(text)
    import yaml  # type: ignore[import-untyped,unused-ignore]

    try:
        return yaml.load(text, Loader=loader)  # our loader builds only plain data
    except yaml.MarkedYAMLError as exc:
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        mark = exc.problem_mark or exc.context_mark
        raise YamlError(f"{problem} at line {mark.line + 1}" if mark else problem) from None
    except yaml.YAMLError as exc:
        raise YamlError(str(exc).splitlines()[0] if str(exc) else "invalid YAML") from None
    except RecursionError:
        raise YamlError("the document nests too deeply") from None


_LOADER: Any = None
_LOADER_READY = False


def _c_loader() -> Any:
    global _LOADER, _LOADER_READY
    if not _LOADER_READY:
        _LOADER_READY = True
        _LOADER = _build_c_loader()
    return _LOADER


def _build_c_loader() -> Any:
    try:
        import yaml  # type: ignore[import-untyped,unused-ignore]
        from yaml._yaml import CParser  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None
    from yaml.constructor import ConstructorError, SafeConstructor  # type: ignore[import-untyped,unused-ignore]
    from yaml.resolver import BaseResolver  # type: ignore[import-untyped,unused-ignore]

    class Resolver12(BaseResolver):  # type: ignore[misc]
        """The YAML 1.2 core schema's implicit tags (what the JS `yaml` package resolves)."""

    for tag, pattern, first in (
        ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
        ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
        (
            "tag:yaml.org,2002:int",
            r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$",
            list("-+0123456789"),
        ),
        (
            "tag:yaml.org,2002:float",
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
            list("-+.0123456789"),
        ),
    ):
        Resolver12.add_implicit_resolver(tag, re.compile(pattern), first)

    class Constructor12(SafeConstructor):  # type: ignore[misc]
        pass

    def construct_int(loader: SafeConstructor, node: Any) -> int:
        value = str(loader.construct_scalar(node))
        if value.startswith("0o"):
            return int(value[2:], 8)
        if value.startswith("0x"):
            return int(value[2:], 16)
        return int(value)

    def construct_map(loader: SafeConstructor, node: Any) -> Any:
        data: dict[Any, Any] = {}
        yield data
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                key = str(key)
            if key in data:
                raise ConstructorError(None, None, f"Map keys must be unique ({key!r} repeats)", key_node.start_mark)
            data[key] = loader.construct_object(value_node, deep=True)

    Constructor12.add_constructor("tag:yaml.org,2002:int", construct_int)
    Constructor12.add_constructor("tag:yaml.org,2002:map", construct_map)

    class Loader(CParser, Constructor12, Resolver12):  # type: ignore[misc]
        def __init__(self, stream: Any) -> None:
            CParser.__init__(self, stream)
            Constructor12.__init__(self)
            Resolver12.__init__(self)

    del yaml
    return Loader


def _load_ruamel(text: str) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return YAML(typ="safe", pure=True).load(text)
    except MarkedYAMLError as exc:
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        mark = exc.problem_mark or exc.context_mark
        raise YamlError(f"{problem} at line {mark.line + 1}" if mark else problem) from None
    except YAMLError as exc:
        raise YamlError(str(exc).splitlines()[0] if str(exc) else "invalid YAML") from None
    except RecursionError:
        raise YamlError("the document nests too deeply") from None
