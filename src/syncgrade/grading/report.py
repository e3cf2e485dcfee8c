"""Stage 8: the one report builder, :func:`build_report`, used for every kind of report
(graded, unreadable, internal error), so status, summary and provenance (``rubric_version``)
are decided in one place."""

from __future__ import annotations

from syncgrade import sandbox
from syncgrade.grading.present import present
from syncgrade.grading.submission import Submission
from syncgrade.models import (
    SCHEMA_VERSION,
    Cause,
    CheckResult,
    GradeReport,
    GradingInfo,
    Protection,
    Provenance,
    ReportStatus,
    StreamExcerpt,
)
from syncgrade.rubric.base import Exercise
from syncgrade.trace import Hello
from syncgrade.version import __version__


def _stream(captured: sandbox.Captured) -> StreamExcerpt:
    return StreamExcerpt(text=captured.text, truncated=captured.truncated,
                         total_bytes=captured.total_bytes)

def _provenance(exercise: Exercise, hello: Hello | None) -> Provenance:
    extra = {} if hello is None else {
        "python_version": hello.python_version, "jax_version": hello.jax_version,
        "jaxlib_version": hello.jaxlib_version, "numpy_version": hello.numpy_version,
        "backend": hello.backend, "device": hello.device,
    }
    return Provenance(syncgrade_version=__version__,
                      rubric_version=f"{exercise.id}@{exercise.version}", **extra)

def build_report(exercise: Exercise, submission: Submission, checks: list[CheckResult],
            outcome: sandbox.SandboxOutcome | None, limits: sandbox.Limits, seconds: float,
            hello: Hello | None, *, cause: Cause, tampered: list[str] | None = None,
            summary: str | None = None, internal_error: str | None = None) -> GradeReport:
    score = sum(c.points for c in checks)
    max_score = exercise.max_score
    status: ReportStatus
    if cause == "grader_fault":
        status = "error"
    elif cause == "graded" and all(c.status == "passed" for c in checks):
        status = "passed"
    else:
        status = "failed"
    if summary is None and tampered:
        summary = ("Not graded: your code altered or reached into the grader, so no result "
                   "can be trusted; see the checks below.")
    if summary is None and cause not in ("graded", "syntax_error"):
        runs = next((c for c in checks if c.id == "runs" and c.status == "failed"), None)
        summary = runs.message if runs else None
    if summary is None:
        failed = [c.id for c in checks if c.status == "failed"]
        summary = ("All checks passed." if status == "passed"
                   else f"{len(failed)} check(s) failed: {', '.join(failed)}." if failed
                   else "Grading could not finish.")
    checks = present(checks)  # order, leads, hints and pictures: decided once, here
    empty = StreamExcerpt(text="", truncated=False, total_bytes=0)
    protections = [] if outcome is None else [
        Protection(name=p.name, applied=p.applied, detail=p.detail)
        for p in outcome.protections
    ]
    return GradeReport(
        schema_version=SCHEMA_VERSION, exercise=exercise.id, title=exercise.title,
        submission=submission.display_name, status=status, cause=cause, score=score,
        max_score=max_score, summary=summary, checks=checks,
        stdout=_stream(outcome.stdout) if outcome else empty,
        stderr=_stream(outcome.stderr) if outcome else empty,
        grading=GradingInfo(
            seconds=round(seconds, 3), timeout_s=limits.wall_s,
            termination=outcome.termination if outcome else "not started",
            protections=protections, tampered=tampered or [], internal_error=internal_error,
        ),
        provenance=_provenance(exercise, hello),
    )

def unreadable_report(exercise: Exercise, submission: Submission, timeout: float,
                       seconds: float) -> GradeReport:
    checks = [
        CheckResult(id=spec.id, title=spec.title, status="failed" if spec.id == "runs"
                    else "skipped", points=0.0, max_points=spec.points,
                    message=submission.problem if spec.id == "runs" else "Not checked.",
                    hint="Save your solution as a plain-text Python file (UTF-8) and grade "
                         "it again." if spec.id == "runs" else "", visibility=spec.visibility)
        for spec in exercise.checks
    ]
    return build_report(exercise, submission, checks, None, sandbox.Limits(wall_s=timeout),
                   seconds, None, cause="unreadable", summary=submission.problem)

def internal_error_report(exercise: Exercise, submission: Submission,
                           outcome: sandbox.SandboxOutcome | None, limits: sandbox.Limits,
                           exc: Exception, seconds: float) -> GradeReport:
    message = f"internal error: {type(exc).__name__}: {exc}"
    checks = [
        CheckResult(id=spec.id, title=spec.title, status="skipped", points=0.0,
                    max_points=spec.points, message="Not checked: the grader failed.", hint="",
                    visibility=spec.visibility)
        for spec in exercise.checks
    ]
    return build_report(exercise, submission, checks, outcome, limits, seconds, None,
                   cause="grader_fault",
                   summary="The grader itself failed (internal error); this is not your "
                           "fault. Please report it.", internal_error=message)
