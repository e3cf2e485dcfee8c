"""The terminal view: one interval that fails several checks is drawn once, then referred to."""

from __future__ import annotations

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
from syncgrade.render import render

SOURCE = ["start = time.perf_counter()", "out = fn(*args)", "stop = time.perf_counter()"]


def _timeline(stop_line: int = 3) -> Timeline:
    return Timeline(file="submission.py", seconds=1e-4, ready_at_stop=False, entries=[
        TimelineEntry(what="timer start", detail="perf_counter", line=1),
        TimelineEntry(what="call", detail="fn(...) dispatched", line=2),
        TimelineEntry(what="timer stop", detail="perf_counter", line=stop_line,
                      note="the timed work was still running when the timer stopped"),
    ])


def _failed(check_id: str, timeline: Timeline | None) -> CheckResult:
    return CheckResult(id=check_id, title=check_id, status="failed", points=0, max_points=1,
                       message=f"{check_id} failed.", hint="Change it.",
                       evidence=Evidence(timeline=timeline))


def _report(*checks: CheckResult) -> GradeReport:
    empty = StreamExcerpt(text="", truncated=False, total_bytes=0)
    return GradeReport(schema_version=SCHEMA_VERSION, exercise="exercise-1", title="t",
                       submission="submission.py", status="failed", cause="graded", score=0,
                       max_score=len(checks), summary="s",
                       checks=list(checks), stdout=empty, stderr=empty,
                       grading=GradingInfo(seconds=1.0, timeout_s=60),
                       provenance=Provenance(syncgrade_version="0", rubric_version="1"))


def test_the_same_timeline_is_drawn_once_and_referred_to() -> None:
    text = render(_report(_failed("sync-before-stop", _timeline()),
                          _failed("warmup-excluded", _timeline()),
                          _failed("inputs-ready", _timeline())), SOURCE)
    assert text.count("What your timer measured (submission.py") == 1
    assert text.count("out = fn(*args)") == 1
    assert text.count("the same interval as under `sync-before-stop` above") == 2


def test_different_timelines_are_each_drawn() -> None:
    text = render(_report(_failed("sync-before-stop", _timeline(3)),
                          _failed("placement-excluded", _timeline(4)),
                          _failed("sample-count", None)), SOURCE)
    assert text.count("What your timer measured (submission.py") == 2
    assert "the same interval as" not in text
