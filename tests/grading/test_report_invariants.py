"""Issue 17: a report's score, status and cause cannot contradict each other.

The models refuse a contradictory report (whoever builds it, and whatever JSON is read
back), and every builder in syncgrade makes consistent ones: a run that timed out or
crashed after every call returned loses `runs`, so it never says `failed` with full marks.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import pytest
from pydantic import ValidationError
from solution_support import solution_grade

from syncgrade import sandbox
from syncgrade.courses import EXERCISES, get_exercise
from syncgrade.grading import Submission, pipeline
from syncgrade.grading.report import internal_error_report, unreadable_report
from syncgrade.models import (
    SCHEMA_VERSION,
    CheckResult,
    GradeReport,
    GradingInfo,
    Provenance,
    StreamExcerpt,
)
from syncgrade.platforms.entry import problem_report

EMPTY = StreamExcerpt(text="", truncated=False, total_bytes=0)


def _check(check_id: str, status: str, points: float | None = None,
           max_points: float = 1.0) -> CheckResult:
    earned = (max_points if status == "passed" else 0.0) if points is None else points
    return CheckResult.model_validate({"id": check_id, "title": check_id, "status": status,
                                       "points": earned, "max_points": max_points,
                                       "message": "m"})


def _report(*checks: CheckResult, status: str, cause: str, **fields: Any) -> dict[str, Any]:
    """A report's fields as a dict (for model_validate), score and max_score summed."""
    return {
        "schema_version": SCHEMA_VERSION, "exercise": "exercise-1", "title": "t",
        "submission": "submission.py", "status": status, "cause": cause,
        "score": sum(c.points for c in checks), "max_score": sum(c.max_points for c in checks),
        "summary": "s", "checks": list(checks), "stdout": EMPTY, "stderr": EMPTY,
        "grading": GradingInfo(seconds=1.0, timeout_s=60),
        "provenance": Provenance(syncgrade_version="0", rubric_version="exercise-1@1"),
        **fields,
    }


FULL = (_check("runs", "passed"), _check("shape", "passed", max_points=12.0))
SHORT = (_check("runs", "passed"), _check("shape", "failed", max_points=12.0))
ZERO = (_check("runs", "failed"), _check("shape", "skipped", max_points=12.0))


@pytest.mark.parametrize(("checks", "status", "cause"), [
    (FULL, "passed", "graded"),
    (SHORT, "failed", "graded"),
    (ZERO, "failed", "timeout"),
    (ZERO, "failed", "unreadable"),
    (ZERO, "error", "grader_fault"),
])
def test_consistent_reports_are_accepted(checks: tuple[CheckResult, ...], status: str,
                                         cause: str) -> None:
    report = GradeReport.model_validate(_report(*checks, status=status, cause=cause))
    assert GradeReport.model_validate_json(report.model_dump_json()) == report


@pytest.mark.parametrize(("checks", "status", "cause", "words"), [
    # The report of the issue: 13/13, yet "failed" because of a timeout.
    (FULL, "failed", "timeout", "contradicts"),
    (FULL, "failed", "graded", "contradicts"),
    (FULL, "passed", "crashed", "contradicts"),
    (SHORT, "passed", "graded", "contradicts"),
    (ZERO, "passed", "graded", "contradicts"),
    (ZERO, "error", "crashed", "grader_fault"),
    (ZERO, "failed", "grader_fault", "grader_fault"),
    (FULL, "error", "grader_fault", "contradicts"),
])
def test_contradicting_status_and_cause_are_refused(checks: tuple[CheckResult, ...],
                                                    status: str, cause: str,
                                                    words: str) -> None:
    fields = _report(*checks, status=status, cause=cause)
    with pytest.raises(ValidationError, match=words):
        GradeReport.model_validate(fields)
    with pytest.raises(ValidationError, match=words):  # read back from JSON too
        GradeReport.model_validate_json(json.dumps(
            {**fields, "checks": [c.model_dump() for c in checks],
             **{k: fields[k].model_dump() for k in ("stdout", "stderr", "grading",
                                                     "provenance")}}))


@pytest.mark.parametrize(("change", "words"), [
    ({"score": 14.0, "max_score": 13.0}, "sum of the checks' points"),
    ({"score": 12.0}, "sum of the checks' points"),
    ({"max_score": 12.0}, "max_points"),
    ({"score": math.nan}, "finite"),
    ({"max_score": math.inf}, "finite"),
])
def test_score_is_the_sum_of_the_points_and_at_most_max_score(change: dict[str, Any],
                                                               words: str) -> None:
    fields = _report(*SHORT, status="failed", cause="graded")
    with pytest.raises(ValidationError, match=words):
        GradeReport.model_validate({**fields, **change})


def test_float_rounding_in_the_sums_is_tolerated() -> None:
    checks = [_check(f"c{i}", "passed", max_points=0.1) for i in range(3)]
    fields = _report(*checks, status="passed", cause="graded")
    report = GradeReport.model_validate({**fields, "score": 0.3, "max_score": 0.3})
    assert report.status == "passed"  # 0.1 + 0.1 + 0.1 != 0.3 exactly


@pytest.mark.parametrize(("status", "points", "max_points"), [
    ("passed", 0.0, 1.0), ("failed", 1.0, 1.0), ("skipped", 0.5, 1.0),
    ("passed", 2.0, 1.0), ("failed", -1.0, 1.0), ("passed", math.nan, math.nan),
    ("failed", 0.0, -1.0),
])
def test_a_check_earns_all_its_points_when_passed_and_none_otherwise(
        status: str, points: float, max_points: float) -> None:
    with pytest.raises(ValidationError):
        _check("runs", status, points, max_points)


# --------------------------------------------------------------------------- builders


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_every_builder_makes_a_consistent_report_with_the_same_rubric_version(
        exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    submission = Submission(None, "submission.py", "The file is empty.")
    limits = sandbox.Limits(wall_s=60)
    reports = [
        unreadable_report(exercise, submission, 60, 0.1),
        internal_error_report(exercise, submission, None, limits,
                                      RuntimeError("boom"), 0.1),
        problem_report(exercise_id, "no file", display_name="submission.py", timeout=60),
    ]
    for report in reports:
        assert report.max_score == exercise.max_score
        assert report.provenance.rubric_version == f"{exercise.id}@{exercise.version}"
        GradeReport.model_validate_json(report.model_dump_json())
    assert [(r.status, r.cause) for r in reports] == [
        ("failed", "unreadable"), ("error", "grader_fault"), ("failed", "unreadable")]


@pytest.fixture(scope="module")
def solution_run() -> pipeline.Ran:
    """The *run* stage's value (:class:`pipeline.Ran`) of grading exercise-1's solution
    (a real grade, shared in this test process: solution_support)."""
    graded = solution_grade("exercise-1")
    assert graded.report.status == "passed", graded.report.summary
    return graded.ran


@pytest.mark.parametrize(("termination", "cause", "words"), [
    ("timeout", "timeout", "time limit"),
    ("memory", "memory_limit", "memory limit"),
    ("signal", "crashed", "killed by SIGKILL"),
    ("exited", "crashed", "exited early"),
])
def test_a_run_that_stops_after_every_call_returned_loses_runs(
        solution_run: pipeline.Ran, termination: sandbox.Termination, cause: str,
        words: str) -> None:
    # Every call frame arrived; then the child stopped before its end frame.
    stopped = tuple(dataclasses.replace(
        run, outcome=dataclasses.replace(
            run.outcome, termination=termination, frames=run.outcome.frames[:-1],
            returncode=-9 if termination == "signal" else 1,
            signal_name="SIGKILL" if termination == "signal" else None))
        for run in solution_run.runs)
    ran = dataclasses.replace(solution_run, runs=stopped)
    report = pipeline.report_of(pipeline.decide_cause(pipeline.evaluate_checks(
        pipeline.read_frames(ran))))
    assert (report.status, report.cause) == ("failed", cause)
    runs_check = report.check("runs")
    assert (runs_check.status, runs_check.points) == ("failed", 0.0)
    assert words in runs_check.message and "Every call of your code returned" in \
        runs_check.message
    assert report.score == report.max_score - runs_check.max_points
    assert all(c.status == "passed" for c in report.checks if c.id != "runs")
    assert report.summary == runs_check.message
