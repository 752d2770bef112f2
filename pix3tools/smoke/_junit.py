"""`pix3 smoke --reporter junit`: the runs as a JUnit XML file (docs/smoke.md, "Reporters").

Pure: runs in, the document's text out. One ``<testsuite>`` in a ``<testsuites>``, one
``<testcase>`` per scene: a scene with errors holds one ``<failure>`` (``type`` = the first
error's code; its text lists every error with its code, message, frame and mapped stack), a
scene that could not run holds one ``<error>`` (``type`` = its code, the reason). The shape keeps
to the rules both schemas CI servers read JUnit files by agree on (docs/smoke.md lists them):
the suite's ``properties``, its ``testcase`` elements, ``system-out`` and ``system-err`` in that
order, at most one failure or error per test case, and every attribute either requires.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from pix3tools.smoke._project import Failure
from pix3tools.smoke._report import JSON_STACK_LINES, Run, SmokeReport, trim_stack

SUITE_NAME = "pix3 smoke"
PACKAGE = "pix3.smoke"
CLASSNAME = "pix3.smoke"
# XML 1.0 refuses these characters even escaped (its `Char` production): C0 controls other than
# tab, LF and CR, lone surrogates, U+FFFE and U+FFFF. A game's console text can hold any of them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 cannot carry replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def _token(text: str) -> str:
    """A name as the strict schema's ``xs:token`` wants it: one line, single spaces, not empty."""
    return " ".join(xml_text(text).split()) or "?"


def _seconds(ms: float | None) -> str:
    """A time in seconds as both schemas' decimal types read it: digits, a point, no exponent."""
    return f"{max(0.0, (ms or 0.0) / 1000):.3f}"


def _error_text(error: dict[str, object], root: Path) -> str:
    lines = [f"frame {error.get('frame')}  {error.get('code')}: {error.get('message')}"]
    stack = error.get("stack")
    if isinstance(stack, str):
        lines += ["    " + line for line in trim_stack(stack, root, JSON_STACK_LINES)]
    return "\n".join(lines)


def _case(suite: ET.Element, run: Run, seconds_ms: float | None, root: Path) -> None:
    case = ET.SubElement(
        suite,
        "testcase",
        {"name": _token(run.scene or "?"), "classname": CLASSNAME, "time": _seconds(seconds_ms)},
    )
    if isinstance(run, Failure):
        element = ET.SubElement(case, "error", {"type": run.code, "message": xml_text(run.reason)})
        element.text = xml_text(f"{run.code}: {run.reason}")
    elif run.errors:
        first = run.errors[0]
        element = ET.SubElement(
            case, "failure", {"type": str(first.get("code")), "message": xml_text(str(first.get("message")))}
        )
        element.text = xml_text("\n\n".join(_error_text(error, root) for error in run.errors))


def junit_xml(
    runs: Sequence[Run],
    root: Path,
    *,
    durations_ms: Sequence[float | None],
    timestamp: datetime,
    hostname: str,
    properties: Sequence[tuple[str, str]] = (),
) -> str:
    """The document: ``durations_ms[i]`` is how long ``runs[i]`` took (None: not known)."""
    failures = sum(1 for run in runs if isinstance(run, SmokeReport) and run.errors)
    errors = sum(1 for run in runs if isinstance(run, Failure))
    total_ms = sum(ms for ms in durations_ms if ms is not None)
    top = ET.Element("testsuites")
    suite = ET.SubElement(
        top,
        "testsuite",
        {
            "name": SUITE_NAME,
            "package": PACKAGE,
            "id": "0",
            "timestamp": timestamp.strftime("%Y-%m-%dT%H:%M:%S"),
            "hostname": _token(hostname) if hostname.strip() else "localhost",
            "tests": str(len(runs)),
            "failures": str(failures),
            "errors": str(errors),
            "skipped": "0",
            "time": _seconds(total_ms),
        },
    )
    listed = ET.SubElement(suite, "properties")
    for name, value in properties:
        ET.SubElement(listed, "property", {"name": _token(name), "value": xml_text(value)})
    for run, ms in zip(runs, durations_ms, strict=True):
        _case(suite, run, ms, root)
    warnings = [
        f"{run.scene}: frame {w.get('frame')}  {w.get('code')}: {w.get('message')}"
        for run in runs
        if isinstance(run, SmokeReport)
        for w in run.warnings
    ]
    ET.SubElement(suite, "system-out").text = xml_text("\n".join(warnings))
    ET.SubElement(suite, "system-err").text = ""
    ET.indent(top, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(top, encoding="unicode") + "\n"
