"""A check of a JUnit XML document against the rules CI servers read such files by: the Ant/JUnit
schema (its strict form, the one most tools validate with) and the schema Jenkins' JUnit reader
declares, where both agree (docs/smoke.md, "Reporters", says which rules these are).

Returns the problems found, [] for a valid document; parsing failures are problems too.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

__all__ = ["junit_problems"]

# xs:decimal without sign or exponent; also Jenkins' time pattern (digits, an optional fraction).
DECIMAL = re.compile(r"^[0-9]+(\.[0-9]*)?$")
INT = re.compile(r"^-?[0-9]+$")
# The strict schema's timestamp: ISO 8601 date and time, no zone, no fraction.
TIMESTAMP = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$")
SUITE_REQUIRED = ("name", "timestamp", "hostname", "tests", "failures", "errors", "time")
SUITE_IN_SUITES = ("package", "id")  # required of a testsuite inside testsuites
# Every attribute a testsuite may carry in Jenkins' schema (the strict one allows a subset of it).
SUITE_ALLOWED = {"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname",
                 "id", "package", "file", "log", "url"}  # fmt: skip
CASE_REQUIRED = ("name", "classname", "time")
CASE_ALLOWED = {"name", "classname", "time", "group"}
OUTCOMES = ("skipped", "error", "failure")


def _token(value: str) -> bool:
    """xs:token of length ≥ 1: no CR/LF/tab, no leading, trailing or doubled spaces."""
    return bool(value) and value == " ".join(value.split()) and "\t" not in value


def junit_problems(text: str) -> list[str]:
    try:
        top = ET.fromstring(text.encode())
    except ET.ParseError as exc:
        return [f"not well-formed XML: {exc}"]
    problems: list[str] = []
    if top.tag != "testsuites":
        return [f"the root is <{top.tag}>, not <testsuites>"]
    if top.attrib:
        problems.append(f"<testsuites> carries attributes the strict schema does not declare: {sorted(top.attrib)}")
    for index, suite in enumerate(top):
        if suite.tag != "testsuite":
            problems.append(f"<testsuites> holds <{suite.tag}>")
            continue
        problems += _suite(suite, index)
    return problems


def _suite(suite: ET.Element, index: int) -> list[str]:
    problems = [f"testsuite lacks @{name}" for name in (*SUITE_REQUIRED, *SUITE_IN_SUITES) if name not in suite.attrib]
    problems += [f"testsuite has unknown @{name}" for name in suite.attrib if name not in SUITE_ALLOWED]
    attrs = suite.attrib
    for name in ("tests", "failures", "errors", "skipped", "id"):
        if name in attrs and not INT.match(attrs[name]):
            problems.append(f"testsuite @{name}={attrs[name]!r} is not an integer")
    if attrs.get("id") not in (None, str(index)):
        problems.append(f"testsuite @id={attrs['id']!r}: the strict schema counts from 0 ({index})")
    if "time" in attrs and not DECIMAL.match(attrs["time"]):
        problems.append(f"testsuite @time={attrs['time']!r} is not a decimal")
    if "timestamp" in attrs and not TIMESTAMP.match(attrs["timestamp"]):
        problems.append(f"testsuite @timestamp={attrs['timestamp']!r} is not YYYY-MM-DDThh:mm:ss")
    for name in ("name", "hostname", "package"):
        if name in attrs and not _token(attrs[name]):
            problems.append(f"testsuite @{name}={attrs[name]!r} is not a non-empty token")
    # The strict schema's sequence: properties, testcase*, system-out, system-err.
    tags = [child.tag for child in suite]
    order = re.fullmatch(r"properties,(testcase,)*system-out,system-err,", "".join(t + "," for t in tags))
    if order is None:
        problems.append(f"testsuite children {tags} are not properties, testcase*, system-out, system-err")
    for child in suite:
        if child.tag == "properties":
            for prop in child:
                if prop.tag != "property" or not _token(prop.get("name", "")) or "value" not in prop.attrib:
                    problems.append(f"a property needs a name (token) and a value: {prop.attrib}")
        elif child.tag == "testcase":
            problems += _case(child)
        elif child.tag in ("system-out", "system-err") and len(child):
            problems.append(f"<{child.tag}> holds elements")
    cases = suite.findall("testcase")
    counts = {
        "tests": len(cases),
        "failures": sum(1 for case in cases if case.find("failure") is not None),
        "errors": sum(1 for case in cases if case.find("error") is not None),
    }
    for name, count in counts.items():
        if attrs.get(name) != str(count):
            problems.append(f"testsuite @{name}={attrs.get(name)!r} but it holds {count}")
    return problems


def _case(case: ET.Element) -> list[str]:
    problems = [f"testcase lacks @{name}" for name in CASE_REQUIRED if name not in case.attrib]
    problems += [f"testcase has unknown @{name}" for name in case.attrib if name not in CASE_ALLOWED]
    for name in ("name", "classname"):
        if name in case.attrib and not _token(case.attrib[name]):
            problems.append(f"testcase @{name}={case.attrib[name]!r} is not a non-empty token")
    if "time" in case.attrib and not DECIMAL.match(case.attrib["time"]):
        problems.append(f"testcase @time={case.attrib['time']!r} is not a decimal")
    children = list(case)
    if len(children) > 1 or any(child.tag not in OUTCOMES for child in children):
        problems.append(f"testcase {case.get('name')!r} holds {[c.tag for c in children]}: at most one of {OUTCOMES}")
    for child in children:
        for name in ("type", "message"):  # the strict schema wants type; Jenkins' both
            if child.tag in ("error", "failure") and name not in child.attrib:
                problems.append(f"<{child.tag}> of {case.get('name')!r} lacks @{name}")
        if len(child):
            problems.append(f"<{child.tag}> of {case.get('name')!r} holds elements (text only)")
    return problems
