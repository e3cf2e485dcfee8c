"""The golden report no corpus file gives: a grade that hit the time limit.

Every other report shape (passed, failed with timelines and pictures, syntax errors,
crashes) has real goldens: each corpus file's report, masked, beside its corpus
(tests/golden_support.py, compared inside tests/courses/test_corpus.py's grades). No
corpus or integrity file hangs (a hang costs a grade of its whole time limit, and where
the stack dump catches the loop varies), so this one report is built here, with the
rubric's own titles, and compared with ``golden/timed_out.txt`` and ``.json`` beside
this file. ``SYNCGRADE_UPDATE_GOLDEN=1 pytest tests/picture/test_golden_reports.py``
rewrites them.
"""

from __future__ import annotations

from pathlib import Path

from golden_support import UPDATE_ENV, WIDTH, assert_golden_files

from syncgrade.courses import EXERCISES
from syncgrade.daemon import render_report
from syncgrade.models import (
    SCHEMA_VERSION,
    CheckResult,
    GradeReport,
    GradingInfo,
    Provenance,
    StreamExcerpt,
)

GOLDEN = Path(__file__).resolve().parent / "golden"
SOURCE = ["import time", "while True:", "    time.sleep(0.01)"]
EMPTY = StreamExcerpt(text="", truncated=False, total_bytes=0)


def _timed_out() -> GradeReport:
    exercise = EXERCISES["exercise-1"]
    (runs,) = (spec for spec in exercise.checks if spec.id == "runs")
    check = CheckResult(
        id="runs", title=runs.title, status="failed", points=0, max_points=1,
        message="Your file did not finish loading: your code hit the 60 s time limit "
                "(it was running line 3).",
        hint="Remove the endless loop at line 3.")
    return GradeReport(
        schema_version=SCHEMA_VERSION, exercise="exercise-1", title=exercise.title,
        submission="submission.py", status="failed", cause="timeout", score=0,
        max_score=1, summary="Your file did not finish loading: your code hit the 60 s "
        "time limit.", checks=[check], stdout=EMPTY, stderr=EMPTY,
        grading=GradingInfo(seconds=60.4, timeout_s=60, termination="timeout"),
        provenance=Provenance(syncgrade_version="0.1.0", rubric_version="exercise-1@1",
                              python_version="3.11.9", backend="cpu", device="cpu"))


def test_a_timed_out_report_in_the_terminal_and_as_json() -> None:
    report = _timed_out()
    text = render_report(report, "text", reveal=False, lines=SOURCE, colour=False,
                         width=WIDTH)
    json_text = render_report(report, "json", reveal=False, lines=SOURCE, colour=False)
    assert GradeReport.model_validate_json(json_text) == report  # the JSON is the report
    assert "NOT YET  score 0/1" in text and "(graded in 60.4 s + start-up)" in text
    assert_golden_files({GOLDEN / "timed_out.txt": text, GOLDEN / "timed_out.json": json_text},
                        f"{UPDATE_ENV}=1 pytest tests/picture/test_golden_reports.py")
