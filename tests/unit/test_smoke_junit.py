"""`pix3 smoke --reporter junit`: the document CI servers read (pure), checked against the schemas'
rules (tests/support/junit.py), with a failing scene named, hostile text kept well-formed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import pytest

from pix3tools.smoke import Failure, SmokeReport, junit_xml, xml_text
from tests.support.junit import junit_problems

ROOT = Path("/home/u/game")
WHEN = datetime(2026, 3, 4, 5, 6, 7, 891011)
THROW = {
    "code": "E_SMOKE_SCRIPT",
    "message": "Error: thrown on frame 30",
    "stack": f"Error: thrown on frame 30\n    at loop ({ROOT}/games/throws.js:5:27)\n    at games/main.js:2:1",
    "frame": 30,
}


def ok(scene: str) -> SmokeReport:
    return SmokeReport(scene, 120, 120, True)


def document(runs: list[SmokeReport | Failure], **kw: object) -> str:
    durations = kw.pop("durations", [812.4] * len(runs))
    return junit_xml(runs, ROOT, durations_ms=durations, timestamp=WHEN, hostname="ci-1", **kw)  # type: ignore[arg-type]


def test_a_mixed_set_is_valid_and_names_each_failing_scene() -> None:
    failed = SmokeReport(
        "scenes/throws.pix3scene", 30, 120, True, errors=[THROW, {**THROW, "frame": 31, "stack": None}]
    )
    failed.errors[1].pop("stack")
    warned = SmokeReport(
        "scenes/warns.pix3scene",
        120,
        120,
        True,
        warnings=[{"code": "W_SMOKE_CONSOLE_WARN", "frame": 2, "message": "late"}],
    )
    stuck = Failure("E_SMOKE_TIMEOUT", "the run did not finish within 20 s: a loop.", "scenes/loop.pix3scene")
    text = document([ok("scenes/main.pix3scene"), failed, warned, stuck], properties=[("shard", "2/4")])
    assert junit_problems(text) == []
    suite = ET.fromstring(text).find("testsuite")
    assert suite is not None
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped", "timestamp", "time")} == {
        "tests": "4", "failures": "1", "errors": "1", "skipped": "0", "timestamp": "2026-03-04T05:06:07", "time": "3.250",
    }  # fmt: skip
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases) == [
        "scenes/main.pix3scene",
        "scenes/throws.pix3scene",
        "scenes/warns.pix3scene",
        "scenes/loop.pix3scene",
    ]
    failure = cases["scenes/throws.pix3scene"].find("failure")
    assert failure is not None and failure.get("type") == "E_SMOKE_SCRIPT"
    assert failure.get("message") == "Error: thrown on frame 30"
    # every error: its frame, code, message and the mapped stack, the project root removed
    assert failure.text == (
        "frame 30  E_SMOKE_SCRIPT: Error: thrown on frame 30\n    at loop (games/throws.js:5:27)\n    at games/main.js:2:1"
        "\n\nframe 31  E_SMOKE_SCRIPT: Error: thrown on frame 30"
    )
    error = cases["scenes/loop.pix3scene"].find("error")
    assert error is not None and (error.get("type"), error.get("message")) == ("E_SMOKE_TIMEOUT", stuck.reason)
    assert cases["scenes/main.pix3scene"].find("failure") is None and len(cases["scenes/main.pix3scene"]) == 0
    assert suite.findtext("system-out") == "scenes/warns.pix3scene: frame 2  W_SMOKE_CONSOLE_WARN: late"
    assert [(p.get("name"), p.get("value")) for p in suite.iter("property")] == [("shard", "2/4")]


def test_an_empty_shard_is_a_valid_suite_of_no_test() -> None:
    text = document([])
    assert junit_problems(text) == []
    assert ET.fromstring(text).find("testsuite").get("tests") == "0"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "hostile",
    [
        "\x00\x01\x1b[31mred\x7f",
        "]]></failure><failure type='x'>",
        '" onload="x',
        "\ud800 lone",
        "\ufffe\uffff",
        "tab\there\r\nCR",
    ],
)
def test_what_a_game_prints_never_breaks_the_document(hostile: str) -> None:
    error = {
        "code": "E_SMOKE_CONSOLE_ERROR",
        "message": hostile,
        "stack": f"Error: x\n    at {hostile} (a.js:1:1)",
        "frame": 1,
    }
    runs: list[SmokeReport | Failure] = [
        SmokeReport(f"scenes/{hostile}.pix3scene", 1, 1, False, errors=[error]),
        Failure("E_SMOKE_CRASH", hostile, "scenes/b.pix3scene"),
    ]
    text = document(runs, properties=[("reason", hostile)])
    assert junit_problems(text) == []
    [failure] = ET.fromstring(text).iter("failure")
    assert failure.get("message") == xml_text(hostile)  # kept, but for what XML cannot carry
    assert "\ufffd" in xml_text(hostile) or "]]>" in hostile or '"' in hostile or "\t" in hostile


def test_the_check_itself_refuses_what_the_schemas_refuse() -> None:
    """The rules checker can fail: each of these breaks one rule a CI server's schema states."""
    good = document([ok("scenes/a.pix3scene")])
    broken = {
        "no timestamp": good.replace(' timestamp="2026-03-04T05:06:07"', ""),
        "a zone in the timestamp": good.replace("05:06:07", "05:06:07Z"),
        "an exponent in time": good.replace('time="0.812"', 'time="8e-1"', 1),
        "testcase without classname": good.replace(' classname="pix3.smoke"', ""),
        "two outcomes": good.replace(
            '<testcase name="scenes/a.pix3scene" classname="pix3.smoke" time="0.812" />',
            '<testcase name="scenes/a.pix3scene" classname="pix3.smoke" time="0.812"><failure type="a"/><error type="b"/></testcase>',
        ),
        "a failure without type": good.replace(
            '<testcase name="scenes/a.pix3scene" classname="pix3.smoke" time="0.812" />',
            '<testcase name="scenes/a.pix3scene" classname="pix3.smoke" time="0.812"><failure message="m"/></testcase>',
        ),
        "a failure without message": good.replace(
            '<testcase name="scenes/a.pix3scene" classname="pix3.smoke" time="0.812" />',
            '<testcase name="scenes/a.pix3scene" classname="pix3.smoke" time="0.812"><failure type="E"/></testcase>',
        ),
        "counts that lie": good.replace('tests="1"', 'tests="2"'),
        "no system-err": good.replace("<system-err />", ""),
        "an attribute on testsuites": good.replace("<testsuites>", '<testsuites tests="1">'),
        "a file on testcase": good.replace('time="0.812" />', 'time="0.812" file="a.js" />'),
    }
    for what, text in broken.items():
        assert text != good, what
        assert junit_problems(text), what
