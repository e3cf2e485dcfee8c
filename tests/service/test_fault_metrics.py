"""``syncgrade_grader_faults_total{cause}``: grader faults counted by cause (issue 26)."""

from __future__ import annotations

from syncgrade import sandbox
from syncgrade.courses import open_course
from syncgrade.grading.cause import GraderKilled, StartupOverrun
from syncgrade.grading.report import internal_error_report
from syncgrade.grading.submission import read_submission
from syncgrade.service.metrics import ServiceMetrics
from syncgrade.service.runner import LocalJobRunner


def _fault(exc: Exception):  # type: ignore[no-untyped-def]
    exercise = open_course(None).get("exercise-1")
    submission = read_submission(None, source="x = 1\n", display_name="a.py")
    return internal_error_report(exercise, submission, None, sandbox.Limits(), exc, 0.5)


def _series(metrics: ServiceMetrics) -> dict[str, float]:
    found = {}
    for line in metrics.render().decode().splitlines():
        if line.startswith("syncgrade_grader_faults_total{"):
            labels, value = line.rsplit(" ", 1)
            found[labels.split('"')[1]] = float(value)
    return found


def test_grader_faults_are_counted_by_cause() -> None:
    idle = LocalJobRunner(lambda task: None, workers=1, queue=0)  # type: ignore[arg-type,return-value]
    metrics = ServiceMetrics(lambda: idle, lambda: None, lambda: True)
    assert _series(metrics) == {"killed": 0, "startup": 0, "out_of_time": 0, "sandbox": 0,
                                "other": 0}
    for exc in (GraderKilled("killed from outside, twice"), GraderKilled("again"),
                StartupOverrun("slow"), ZeroDivisionError("bug")):
        report = _fault(exc)
        assert report.status == "error"
        metrics.graded(report, report.grading.seconds)
    idle.close()
    assert _series(metrics) == {"killed": 2, "startup": 1, "out_of_time": 0, "sandbox": 0,
                                "other": 1}
