"""The grade report: the one data structure every renderer and platform adapter reads.

Immutable pydantic models with a ``schema_version``. A learner failure is data here; only
a grader fault raises. Check ids are the public ones from the curriculum contract.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.0"

CheckStatus = Literal["passed", "failed", "skipped"]
ReportStatus = Literal["passed", "failed", "error"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TimelineEntry(_Frozen):
    """One event of a learner interval, in order, for the picture of what the timer saw."""

    what: str = Field(description="timer start, call, wait, placement, compile, timer stop…")
    detail: str = ""
    line: int | None = Field(None, description="the learner's line, when the event is theirs")
    note: str = Field("", description="why this event matters to the check")


class Timeline(_Frozen):
    """The learner's first offending interval, drawn from their own code."""

    file: str
    entries: list[TimelineEntry]
    seconds: float | None = None
    ready_at_stop: bool | None = Field(
        None, description="were the timed outputs complete when the timer stopped?"
    )


class Evidence(_Frozen):
    """What a check saw. Never contains hidden inputs or expected values."""

    facts: dict[str, str | int | float | bool | None] = {}
    timeline: Timeline | None = None


class CheckResult(_Frozen):
    id: str = Field(description="stable check id from EXERCISES.md")
    title: str
    status: CheckStatus
    points: float
    max_points: float
    message: str = Field(description="what happened, kind and specific")
    hint: str = Field("", description="what to change (empty when passed)")
    evidence: Evidence = Evidence()


class StreamExcerpt(_Frozen):
    text: str
    truncated: bool
    total_bytes: int


class Provenance(_Frozen):
    syncgrade_version: str
    rubric_version: str
    python_version: str | None = None
    jax_version: str | None = None
    jaxlib_version: str | None = None
    numpy_version: str | None = None
    backend: str | None = None
    device: str | None = None


class Protection(_Frozen):
    name: str
    applied: bool
    detail: str = ""


class GradingInfo(_Frozen):
    """How the grading itself went: time taken, limits, the sandbox's protections."""

    seconds: float
    timeout_s: float
    termination: str = "exited"
    protections: list[Protection] = []
    tampered: list[str] = Field([], description="grader hooks the submission replaced")
    internal_error: str | None = Field(None, description="set only when the grader failed")


class GradeReport(_Frozen):
    schema_version: str = SCHEMA_VERSION
    exercise: str
    title: str
    submission: str = Field(description="the graded file as the learner named it")
    status: ReportStatus
    score: float
    max_score: float
    summary: str
    checks: list[CheckResult]
    stdout: StreamExcerpt
    stderr: StreamExcerpt
    grading: GradingInfo
    provenance: Provenance

    @property
    def full_marks(self) -> bool:
        return self.status == "passed"

    def check(self, check_id: str) -> CheckResult:
        for result in self.checks:
            if result.id == check_id:
                return result
        raise KeyError(check_id)
