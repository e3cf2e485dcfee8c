"""Each platform's documented results.json field set, as checks the tests share.

Sources: Gradescope ``docs/specs.md`` (gradescope/autograder_samples), PrairieLearn
``docs/externalGrading.md``, Exercism ``building/tooling/test-runners/interface.md``.
Each validator asserts exact key sets, types and ranges, so a renamed or extra field fails.
"""

from __future__ import annotations

import json
from typing import Any

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

GS_VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
GS_TOP = {"score", "execution_time", "output", "stdout_visibility", "tests", "extra_data"}
GS_TEST = {"name", "score", "max_score", "status", "output", "visibility"}
PL_GRADABLE = {"gradable", "score", "message", "output", "tests"}
PL_UNGRADABLE = {"gradable", "format_errors", "message", "output"}
PL_TEST = {"name", "points", "max_points", "message", "output"}
EX_TOP = {"version", "status", "message", "tests"}
EX_TEST = {"name", "status", "message", "output", "task_id"}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_gradescope(results: dict[str, Any]) -> None:
    assert set(results) == GS_TOP
    assert _number(results["score"]) and results["score"] >= 0
    assert _number(results["execution_time"]) and results["execution_time"] >= 0
    assert isinstance(results["output"], str) and results["output"]
    assert results["stdout_visibility"] in GS_VISIBILITY
    assert isinstance(results["extra_data"], dict)
    assert isinstance(results["tests"], list)
    for test in results["tests"]:
        assert set(test) == GS_TEST
        assert isinstance(test["name"], str) and test["name"]
        assert _number(test["score"]) and _number(test["max_score"])
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in ("passed", "failed")
        assert isinstance(test["output"], str)
        assert test["visibility"] in GS_VISIBILITY
    if results["tests"]:
        assert abs(sum(t["score"] for t in results["tests"]) - results["score"]) < 1e-9
    json.dumps(results, allow_nan=False)


def check_prairielearn(results: dict[str, Any]) -> None:
    assert isinstance(results["gradable"], bool)
    assert isinstance(results["message"], str) and results["message"]
    assert isinstance(results["output"], str)
    if results["gradable"]:
        assert set(results) == PL_GRADABLE
        assert _number(results["score"]) and 0.0 <= results["score"] <= 1.0
        for test in results["tests"]:
            assert set(test) == PL_TEST
            assert isinstance(test["name"], str) and test["name"]
            assert _number(test["points"]) and _number(test["max_points"])
            assert 0 <= test["points"] <= test["max_points"]
            assert isinstance(test["message"], str) and isinstance(test["output"], str)
    else:
        assert set(results) == PL_UNGRADABLE
        errors = results["format_errors"]
        assert isinstance(errors, list) and errors
        assert all(isinstance(e, str) and e for e in errors)
    assert len(json.dumps(results, allow_nan=False).encode()) < 1_000_000  # PL's 1 MB


def check_exercism(results: dict[str, Any]) -> None:
    assert set(results) == EX_TOP
    assert results["version"] == 3
    assert results["status"] in ("pass", "fail", "error")
    if results["status"] == "error":
        assert isinstance(results["message"], str) and results["message"]
        assert len(results["message"]) <= 65535
    else:
        assert results["message"] is None
    statuses = []
    for test in results["tests"]:
        assert set(test) == EX_TEST
        assert isinstance(test["name"], str) and test["name"]
        assert test["status"] in ("pass", "fail", "error")
        assert test["message"] is None or isinstance(test["message"], str)
        assert test["output"] is None or (isinstance(test["output"], str)
                                          and len(test["output"]) <= 500)
        assert isinstance(test["task_id"], int) and test["task_id"] >= 1
        statuses.append(test["status"])
    if results["status"] == "pass":
        assert statuses and set(statuses) == {"pass"}
    elif results["status"] == "fail":
        assert {"fail", "error"} & set(statuses)
    else:
        assert set(statuses) <= {"error"}
    json.dumps(results, allow_nan=False)


def make_check(check_id: str, status: str = "failed", *, visibility: str = "visible",
               message: str = "", hint: str = "", facts: dict[str, Any] | None = None,
               timeline: Timeline | None = None, points: float = 1.0) -> CheckResult:
    return CheckResult.model_validate({
        "id": check_id, "title": check_id.title(), "status": status,
        "points": points if status == "passed" else 0.0, "max_points": points,
        "message": message or f"{check_id} {status}", "hint": hint,
        "evidence": Evidence(facts=facts or {}, timeline=timeline), "visibility": visibility})


def make_report(*checks: CheckResult, status: str = "failed", cause: str = "graded",
                summary: str = "s", stdout: str = "", stderr: str = "",
                internal_error: str | None = None) -> GradeReport:
    def stream(text: str) -> StreamExcerpt:
        return StreamExcerpt(text=text, truncated=False, total_bytes=len(text))

    return GradeReport.model_validate({
        "schema_version": SCHEMA_VERSION, "exercise": "exercise-1", "title": "t",
        "submission": "submission.py", "status": status, "cause": cause,
        "score": sum(c.points for c in checks), "max_score": sum(c.max_points for c in checks),
        "summary": summary, "checks": list(checks), "stdout": stream(stdout),
        "stderr": stream(stderr),
        "grading": GradingInfo(seconds=1.5, timeout_s=60, internal_error=internal_error),
        "provenance": Provenance(syncgrade_version="0", rubric_version="1")})


def secret_timeline(secret: str) -> Timeline:
    return Timeline(file="submission.py", seconds=0.001, entries=[
        TimelineEntry(what="timer start", line=3, note=secret),
        TimelineEntry(what="timer stop", line=4, detail=secret)])
