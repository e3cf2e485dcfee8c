"""Golden reports: the terminal text and the JSON of a few fixed reports, built here (not
by grading, so nothing varies), compared with snapshots kept in this file.

A deliberate change of the rendering or of the report's JSON shows as a diff here; review
it, then update the snapshots with ``pytest tests/picture/test_golden_reports.py
--inline-snapshot=fix`` (inline-snapshot, the ``test`` extra).
"""

# ruff: noqa: E501  (the snapshots are the exact terminal lines)
from __future__ import annotations

import json

import pytest
from inline_snapshot import snapshot

from syncgrade.models import (
    SCHEMA_VERSION,
    CheckResult,
    Evidence,
    GradeReport,
    GradingInfo,
    Provenance,
    StreamExcerpt,
    Timeline,
    TimelineEntry,
)
from syncgrade.platforms.output import format_report

SOURCE = ["import time", "start = time.perf_counter()", "out = fn(x)", "stop = time.perf_counter()"]
EMPTY = StreamExcerpt(text="", truncated=False, total_bytes=0)
PROVENANCE = Provenance(
    syncgrade_version="0.1.0",
    rubric_version="exercise-1@1",
    python_version="3.11.9",
    backend="cpu",
    device="cpu",
)


def _passed(check_id: str, title: str, message: str, points: float = 1) -> CheckResult:
    return CheckResult(
        id=check_id, title=title, status="passed", points=points, max_points=points, message=message
    )


def _report(
    checks: list[CheckResult],
    *,
    status: str = "passed",
    cause: str = "graded",
    summary: str = "All checks passed.",
    stderr: StreamExcerpt = EMPTY,
    grading: GradingInfo | None = None,
) -> GradeReport:
    return GradeReport(
        schema_version=SCHEMA_VERSION,
        exercise="exercise-1",
        title="Time a jitted function correctly",
        submission="submission.py",
        status=status,
        cause=cause,
        score=sum(c.points for c in checks),
        max_score=sum(c.max_points for c in checks),
        summary=summary,
        checks=checks,
        stdout=EMPTY,
        stderr=stderr,
        grading=grading or GradingInfo(seconds=2.5, timeout_s=60),
        provenance=PROVENANCE,
    )


PASSED = _report(
    [
        _passed("runs", "Your code runs", "Your function ran and returned 5 samples."),
        _passed(
            "sync-before-stop",
            "Wait before stopping the timer",
            "Each of the 5 intervals waits for the timed work before the timer stops.",
            2,
        ),
    ]
)

STILL_RUNNING = Timeline(
    file="submission.py",
    seconds=1.2e-4,
    ready_at_stop=False,
    entries=[
        TimelineEntry(what="timer start", detail="perf_counter", line=2),
        TimelineEntry(what="call", detail="fn(...) dispatched", line=3),
        TimelineEntry(
            what="timer stop",
            detail="perf_counter",
            line=4,
            note="the timed work was still running when the timer stopped",
        ),
    ],
)

FAILED = _report(
    [
        _passed("runs", "Your code runs", "Your function ran and returned 5 samples."),
        CheckResult(
            id="sync-before-stop",
            title="Wait before stopping the timer",
            status="failed",
            points=0,
            max_points=2,
            message="The timer stopped while the timed work was still running.",
            hint="Call .block_until_ready() on the output before reading the clock.",
            evidence=Evidence(facts={"intervals": 5}, timeline=STILL_RUNNING),
        ),
    ],
    status="failed",
    summary="1 check(s) failed: sync-before-stop.",
    stderr=StreamExcerpt(text="warning: one\nTraceback: two\n", truncated=False, total_bytes=27),
)

TIMED_OUT = _report(
    [
        CheckResult(
            id="runs",
            title="Your code runs",
            status="failed",
            points=0,
            max_points=1,
            message="Your file did not finish loading in 60 s.",
            hint="Remove the endless loop at line 1.",
        )
    ],
    status="failed",
    cause="timeout",
    summary="Your file did not finish loading: your code hit the 60 s time limit.",
    grading=GradingInfo(seconds=60.4, timeout_s=60, termination="timeout"),
)


@pytest.fixture(autouse=True)
def _eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """The terminal text wraps to the terminal's width: these snapshots are at 80."""
    monkeypatch.setenv("COLUMNS", "80")


def test_a_passed_report_in_the_terminal() -> None:
    assert format_report(PASSED, "text", source_lines=SOURCE) == snapshot("""\
exercise-1 · Time a jitted function correctly
submission.py

  ✓ runs                1/1  Your function ran and returned 5 samples.
  ✓ sync-before-stop    2/2  Each of the 5 intervals waits for the timed work
                             before the timer stops.

PASSED  score 3/3  ·  All checks passed.  (graded in 2.5 s + start-up)
""")


def test_a_failed_report_with_its_timeline_in_the_terminal() -> None:
    assert format_report(FAILED, "text", source_lines=SOURCE) == snapshot("""\
exercise-1 · Time a jitted function correctly
submission.py

  ✓ runs                1/1  Your function ran and returned 5 samples.
  ✗ sync-before-stop    0/2  The timer stopped while the timed work was still
                             running.
                             → Call .block_until_ready() on the output before
                               reading the clock.
    What your timer measured (submission.py, measured 0.120 ms):
      line 2    timer start  start = time.perf_counter()
      line 3    call         out = fn(x)
      line 4    timer stop   stop = time.perf_counter()
                ← the timed work was still running when the timer stopped

NOT YET  score 1/3  ·  1 check(s) failed: sync-before-stop.  (graded in 2.5 s +
start-up)
Last lines your code wrote to stderr:
  warning: one
  Traceback: two
""")


def test_a_timed_out_report_in_the_terminal() -> None:
    assert format_report(TIMED_OUT, "text", source_lines=SOURCE) == snapshot("""\
exercise-1 · Time a jitted function correctly
submission.py

  ✗ runs    0/1  Your file did not finish loading in 60 s.
                 → Remove the endless loop at line 1.

NOT YET  score 0/1  ·  Your file did not finish loading: your code hit the 60 s
time limit.  (graded in 60.4 s + start-up)
""")


def test_a_failed_report_as_json() -> None:
    text = format_report(FAILED, "json")
    assert GradeReport.model_validate_json(text) == FAILED  # the JSON is the report, whole
    assert json.loads(text) == snapshot(
        {
            "schema_version": '2.2',
            "exercise": "exercise-1",
            "title": "Time a jitted function correctly",
            "submission": "submission.py",
            "status": "failed",
            "cause": "graded",
            "score": 1.0,
            "max_score": 3.0,
            "summary": "1 check(s) failed: sync-before-stop.",
            "checks": [
                {
                    "id": "runs",
                    "title": "Your code runs",
                    "status": "passed",
                    "points": 1.0,
                    "max_points": 1.0,
                    "message": "Your function ran and returned 5 samples.",
                    "hint": "",
                    "evidence": {"facts": {}, "timeline": None, "interval": None, 'answer': None, "samples": None},
                    "visibility": "visible", 'follows': [], 'same_interval_as': None},
                {
                    "id": "sync-before-stop",
                    "title": "Wait before stopping the timer",
                    "status": "failed",
                    "points": 0.0,
                    "max_points": 2.0,
                    "message": "The timer stopped while the timed work was still running.",
                    "hint": "Call .block_until_ready() on the output before reading the clock.",
                    "evidence": {
                        "facts": {"intervals": 5},
                        "timeline": {
                            "file": "submission.py",
                            "entries": [
                                {
                                    "what": "timer start",
                                    "detail": "perf_counter",
                                    "line": 2,
                                    "note": "",
                                },
                                {
                                    "what": "call",
                                    "detail": "fn(...) dispatched",
                                    "line": 3,
                                    "note": "",
                                },
                                {
                                    "what": "timer stop",
                                    "detail": "perf_counter",
                                    "line": 4,
                                    "note": "the timed work was still running when the timer stopped",
                                },
                            ],
                            "seconds": 0.00012,
                            "ready_at_stop": False,
                        },
                        "interval": None, 'answer': None, "samples": None,
                    },
                    "visibility": "visible", 'follows': [], 'same_interval_as': None},
            ],
            "stdout": {"text": "", "truncated": False, "total_bytes": 0},
            "stderr": {
                "text": """\
warning: one
Traceback: two
""",
                "truncated": False,
                "total_bytes": 27,
            },
            "grading": {
                "seconds": 2.5,
                "timeout_s": 60.0,
                "termination": "exited",
                "protections": [],
                "tampered": [],
                "internal_error": None,
            },
            "provenance": {
                "syncgrade_version": "0.1.0",
                "rubric_version": "exercise-1@1",
                "python_version": "3.11.9",
                "jax_version": None,
                "jaxlib_version": None,
                "numpy_version": None,
                "backend": "cpu",
                "device": "cpu",
            },
        }
    )


def test_a_timed_out_report_as_json() -> None:
    assert json.loads(format_report(TIMED_OUT, "json")) == snapshot(
        {
            "schema_version": '2.2',
            "exercise": "exercise-1",
            "title": "Time a jitted function correctly",
            "submission": "submission.py",
            "status": "failed",
            "cause": "timeout",
            "score": 0.0,
            "max_score": 1.0,
            "summary": "Your file did not finish loading: your code hit the 60 s time limit.",
            "checks": [
                {
                    "id": "runs",
                    "title": "Your code runs",
                    "status": "failed",
                    "points": 0.0,
                    "max_points": 1.0,
                    "message": "Your file did not finish loading in 60 s.",
                    "hint": "Remove the endless loop at line 1.",
                    "evidence": {"facts": {}, "timeline": None, "interval": None, 'answer': None, "samples": None},
                    "visibility": "visible", 'follows': [], 'same_interval_as': None}
            ],
            "stdout": {"text": "", "truncated": False, "total_bytes": 0},
            "stderr": {"text": "", "truncated": False, "total_bytes": 0},
            "grading": {
                "seconds": 60.4,
                "timeout_s": 60.0,
                "termination": "timeout",
                "protections": [],
                "tampered": [],
                "internal_error": None,
            },
            "provenance": {
                "syncgrade_version": "0.1.0",
                "rubric_version": "exercise-1@1",
                "python_version": "3.11.9",
                "jax_version": None,
                "jaxlib_version": None,
                "numpy_version": None,
                "backend": "cpu",
                "device": "cpu",
            },
        }
    )
