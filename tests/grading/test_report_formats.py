"""One report, three formats, the same decisions (issue 27).

Real grades of course files (exercise-7's stub and a flawed file whose failures share one
missing wait, an exercise-5 file whose old lead was wrong), rendered as text, HTML and
JSON: each format shows the checks in the same order (the exercise's), the same leads and
hints, and the interval picture on the same checks. The report decides these once
(:mod:`syncgrade.grading.present`); no format decides them again. Three grades in all.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import TypedDict

import pytest
from builders import printed_report

import syncgrade
from syncgrade.courses import open_course
from syncgrade.models import GradeReport
from syncgrade.picture import render_html
from syncgrade.platforms.output import format_report
from syncgrade.render import render

WIDE = 1000  # the text view unwrapped: one line per message and per hint


class Shown(TypedDict):
    """What one format shows: the checks in order, each failed check's hint, and the
    checks with an interval picture."""

    order: list[str]
    hints: dict[str, str]
    drawn: list[str]


def _file(exercise: str, kind: str, name: str = "") -> Path:
    folder = open_course().folder(exercise)
    if kind == "stub":
        return Path(folder.stub)
    return next(p for p in folder.corpus_files(kind) if p.stem == name)


CASES = {
    "exercise-7-stub": ("exercise-7", "stub", ""),
    "exercise-7-no-wait": ("exercise-7", "flawed", "no_wait"),
    "exercise-5-jit-in-timed-loop": ("exercise-5", "flawed", "jit_in_timed_loop"),
}


@pytest.fixture(scope="module")
def reports() -> dict[str, tuple[GradeReport, list[str]]]:
    out = {}
    for name, (exercise, kind, stem) in CASES.items():
        path = _file(exercise, kind, stem)
        report = syncgrade.grade(exercise, path, timeout=120, display_name=path.name)
        out[name] = (report, path.read_text(encoding="utf-8").splitlines())
    return out


def _from_text(text: str) -> Shown:
    order: list[str] = []
    hints: dict[str, str] = {}
    drawn: list[str] = []
    current = ""
    for line in text.splitlines():
        head = re.match(r"  [✓✗-] (\S+)", line)
        if head:
            current = head.group(1)
            order.append(current)
        elif line.strip().startswith("→ "):
            hints[current] = line.strip()[2:]
        elif line.strip().startswith("What your timer measured ("):
            drawn.append(current)
    return {"order": order, "hints": hints, "drawn": drawn}


def _plain(fragment: str) -> str:
    coded = re.sub(r"</?code>", "`", fragment)  # each <code> span is one `code` span
    return html.unescape(re.sub(r"<[^>]+>", "", coded))


def _from_html(page: str) -> Shown:
    order: list[str] = []
    hints: dict[str, str] = {}
    drawn: list[str] = []
    for item in re.findall(r'<li class="sg-check[^"]*"[^>]*data-check="([^"]+)".*?</li>',
                           page, flags=re.S):
        order.append(item)
    for check_id, body in re.findall(r'data-check="([^"]+)"(.*?)</li>', page, flags=re.S):
        hint = re.search(r'<p class="sg-hint">(.*?)</p>', body, flags=re.S)
        if hint:
            assert "`" not in hint.group(1), hint.group(1)  # code spans are <code>
            hints[check_id] = _plain(hint.group(1))
        if "<svg" in body and "sg-figure" in body and "interval" in body:
            drawn.append(check_id)
    return {"order": order, "hints": hints, "drawn": drawn}


def _from_json(text: str) -> Shown:
    data = json.loads(text)
    checks = data["checks"]
    return {"order": [c["id"] for c in checks],
            "hints": {c["id"]: c["hint"] for c in checks if c["status"] == "failed"
                      and c["hint"]},
            "drawn": [c["id"] for c in checks if c["status"] == "failed"
                      and c["evidence"]["timeline"] and not c["same_interval_as"]]}


@pytest.mark.parametrize("name", list(CASES))
def test_text_html_and_json_show_the_same_decisions(
        reports: dict[str, tuple[GradeReport, list[str]]], name: str) -> None:
    report, lines = reports[name]
    text = _from_text(render(report, lines, width=WIDE))
    page = _from_html(render_html(report, source_lines=lines))
    data = _from_json(format_report(report, "json"))
    assert text["order"] == page["order"] == data["order"]
    assert text["hints"] == page["hints"] == data["hints"]
    assert text["drawn"] == data["drawn"]
    assert set(page["drawn"]) == set(data["drawn"])
    assert data["drawn"], "a failing timing check draws its interval"
    # The exercise's order, whatever failed (issue 35), and every lead above its follower
    # in it (the exercise's order puts the checks that can lead first).
    declared = [spec.id for spec in open_course().get(report.exercise).checks]
    assert data["order"] == [check_id for check_id in declared if check_id in data["order"]]
    for check in report.checks:
        for lead in check.follows:
            assert data["order"].index(lead) < data["order"].index(check.id)
            assert f"`{lead}`" in check.hint and " above: fixing th" in check.hint


def test_a_lead_is_given_only_where_fixing_it_fixes_the_follower(
        reports: dict[str, tuple[GradeReport, list[str]]]) -> None:
    stub = {c.id: c.follows for c in reports["exercise-7-stub"][0].checks}
    assert stub["covers-device-work"] == ["sync-before-stop"]  # one missing warm wait
    # no_wait misses the wait in the first-call AND the warm loop: the first-call check
    # does not lead `sync-before-stop` (fixing it leaves the warm loop failing).
    no_wait = {c.id: c.follows for c in reports["exercise-7-no-wait"][0].checks}
    assert no_wait["sync-before-stop"] == []
    assert no_wait["covers-device-work"] == ["sync-before-stop"]
    # A function jitted anew per sample: reusing one does not warm it up.
    jit = {c.id: c for c in reports["exercise-5-jit-in-timed-loop"][0].checks}
    assert jit["warmup-excluded"].follows == []
    assert "Because of" not in jit["warmup-excluded"].hint


def test_the_learners_own_output_shows_briefly_in_text_and_html() -> None:
    short = printed_report("hello from me\nshape (64,)\n")
    for shown in (render(short), render_html(short)):
        assert "What your code printed" in shown and "shape (64,)" in shown
        assert "truncated" not in shown
    long = printed_report("".join(f"line {i}\n" for i in range(500)))
    for shown in (render(long), render_html(long)):
        assert "line 0" in shown and "line 499" not in shown and "(truncated)" in shown
    assert "What your code printed" not in render(printed_report(""))
