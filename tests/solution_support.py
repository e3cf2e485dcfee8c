"""Each reference solution of the built-in course, graded once per test process.

Several modules need a real grade of a solution: its report (test_sweep: full marks;
test_picture_report: the same verdicts with and without pictures) or its *run* stage's
value (test_odd_values and test_report_invariants feed its frames, altered, to the later
stages). Each used to grade the solutions itself, the same grade up to four times in one
test process (a grade is 0.3-2 CPU-seconds). :func:`solution_grade` grades a solution on
its first use in the process and keeps the report and the run together: every caller
still asserts on a real grade, through the real child, and none may change what it got
(the run stage's value is a frozen dataclass; copy before altering, as those tests do).
"""

from __future__ import annotations

from dataclasses import dataclass

import syncgrade
from syncgrade.courses import builtin_course
from syncgrade.grading import pipeline
from syncgrade.models import GradeReport

SOLUTION_TIMEOUT_S = 60.0
"""The wall limit of these grades: generous, for a loaded machine (the verdicts do not
depend on it)."""


@dataclass(frozen=True)
class SolutionGrade:
    """A grade of one exercise's reference solution: its report, and the *run* stage's
    value (:class:`pipeline.Ran`) it was made from."""

    report: GradeReport
    ran: pipeline.Ran


_GRADES: dict[str, SolutionGrade] = {}


def solution_grade(exercise: str) -> SolutionGrade:
    """``exercise``'s reference solution graded (``syncgrade.grade`` on its file, the
    built-in course), the first time in this process; the same grade afterwards."""
    if exercise not in _GRADES:
        captured: list[pipeline.Ran] = []
        real = pipeline.read_frames

        def capture(ran: pipeline.Ran) -> pipeline.Evidence:
            captured.append(ran)
            return real(ran)

        pipeline.read_frames = capture
        try:
            report = syncgrade.grade(exercise, builtin_course().folder(exercise).solution,
                                     timeout=SOLUTION_TIMEOUT_S)
        finally:
            pipeline.read_frames = real
        assert len(captured) == 1, f"{exercise}: {len(captured)} run stages in one grade"
        _GRADES[exercise] = SolutionGrade(report=report, ran=captured[0])
    return _GRADES[exercise]
