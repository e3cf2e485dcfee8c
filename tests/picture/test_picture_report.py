"""Pictures from real grades: the exercise-1 stub (its interval stops while the work is still
running) and the exercise-7 solution (first-call and warm samples on one axis), as data in
the report and as HTML; every exercise's stub failing cleanly and drawn soundly (no label
cut, no event before its cause, a width that fits; ``picture_support``), exercise-8's
missing readback, exercise-2's answers and exercise-7's distributions where their check
fails; and ``syncgrade.notebook.grade`` on code given as text."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from picture_support import FIT, assert_pictures_sound, pictures
from solution_support import solution_grade

import syncgrade
from syncgrade.analysis import PHASES
from syncgrade.courses import EXERCISES, open_course
from syncgrade.models import SCHEMA_VERSION, GradeReport
from syncgrade.notebook import CELL_NAME, NotebookError, source_from_cells
from syncgrade.notebook import grade as notebook_grade
from syncgrade.picture import render_html
from syncgrade.rubric.timeline import COMPILES, NO_READBACK
from syncgrade.schema import schema_file_name

ROOT = Path(__file__).resolve().parents[2]
STILL = "the timed work was still running when the timer stopped"


def course_file(exercise: str, which: str) -> Path:
    """The course's stub (what `grade start` hands out) or reference solution."""
    files = open_course().folder(exercise)
    return files.stub if which == "stub" else files.solution


@pytest.fixture(scope="module")
def stub_report() -> GradeReport:
    return syncgrade.grade("exercise-1", course_file("exercise-1", "stub"),
                           display_name="submission.py")


@pytest.fixture(scope="module")
def report_7() -> GradeReport:
    return syncgrade.grade("exercise-7", course_file("exercise-7", "solution"),
                           display_name="submission.py")


@pytest.fixture(scope="module")
def stub_reports(stub_report: GradeReport) -> dict[str, GradeReport]:
    """Every exercise's stub, graded once (exercise-1's is ``stub_report``)."""
    return {exercise: stub_report if exercise == "exercise-1" else syncgrade.grade(
        exercise, course_file(exercise, "stub"), display_name="submission.py")
        for exercise in EXERCISES}


def test_every_stub_fails_cleanly(stub_reports: dict[str, GradeReport]) -> None:
    """Every stub is graded, not full marks, no grader error: it runs and is only not right
    yet, and every check says something, with a hint where it fails (here rather than in
    tests/courses/test_sweep.py, so each stub is graded once)."""
    for exercise, report in stub_reports.items():
        assert report.status == "failed", exercise
        assert report.grading.internal_error is None, exercise
        assert report.check("runs").status == "passed", exercise
        assert report.score < report.max_score, exercise
        assert all(c.message for c in report.checks), exercise
        assert all(c.hint for c in report.checks if c.status == "failed"), exercise


def test_every_stub_is_drawn_soundly(stub_reports: dict[str, GradeReport]) -> None:
    """No label cut or outside its picture, no event before its cause, every picture as
    wide as a 1200-pixel window allows (tests/courses/test_corpus.py checks every flawed
    corpus file the same way)."""
    drawn = {exercise: assert_pictures_sound(report)
             for exercise, report in stub_reports.items()}
    assert all(report.status == "failed" for report in stub_reports.values())
    assert all(drawn.values()), drawn  # every stub fails something a picture shows


def test_exercise_8_draws_its_order_and_the_missing_readback(
        stub_reports: dict[str, GradeReport]) -> None:
    report = stub_reports["exercise-8"]
    check = report.check("readback-included")
    pic = check.evidence.interval
    assert check.status == "failed" and pic is not None
    kinds = [e.kind for e in pic.host]
    # The call compiles before it dispatches; the readback that belongs before the stop
    # is drawn as missing, and marked.
    assert kinds == ["timer start", "compile", "call", "wait", "no readback", "timer stop"]
    assert (kinds.index("no readback"), NO_READBACK) in {(f.at, f.words) for f in pic.flaws}
    assert (kinds.index("compile"), COMPILES) in {(f.at, f.words) for f in pic.flaws}
    (work,) = pic.device
    assert work.dispatched_at == kinds.index("call")
    (svg,) = pictures(report)
    assert float(svg.get("width") or 0) <= FIT
    assert f"⚠ {NO_READBACK}" in render_html(report)


def test_exercise_2_draws_each_answer_beside_its_snippet_without_the_key(
        stub_reports: dict[str, GradeReport]) -> None:
    report = stub_reports["exercise-2"]
    answers = [c for c in report.checks if c.id.startswith("answer-") and c.id != (
        "answer-sync-point")]
    assert len(answers) == 4 and all(c.status == "failed" for c in answers)
    for check in answers:
        pic = check.evidence.answer
        assert pic is not None and pic.answer == [] and pic.verdict == check.message
        assert pic.lines[pic.start].startswith("start = ")
        assert pic.lines[pic.stop].startswith("stop = ")
    svgs = [s for s in pictures(report) if "sg-answer" in (s.get("class") or "")]
    assert len(svgs) == 4
    for svg in svgs:
        words = " ".join(svg.itertext())
        assert "(no phases)" in words and "your answer" in words
        # The stub answers nothing: no phase name may appear, so none of the key does.
        assert not [phase for phase in PHASES if phase in words]


def test_exercise_7_draws_the_distributions_under_the_failed_first_call_check(
        stub_reports: dict[str, GradeReport]) -> None:
    report = stub_reports["exercise-7"]
    assert report.check("first-call-includes-compile").status == "failed"
    page = render_html(report)
    assert page.count('class="sg-pic sg-distributions"') == 1
    home = page.index('data-check="first-call-includes-compile"')
    chart = page.index('class="sg-pic sg-distributions"')
    after = page.find('<li class="sg-check', home + 1)
    assert home < chart < (after if after > 0 else len(page))


def test_the_stub_interval_as_data(stub_report: GradeReport) -> None:
    check = stub_report.check("sync-before-stop")
    assert check.status == "failed"
    pic, timeline = check.evidence.interval, check.evidence.timeline
    assert pic is not None and timeline is not None
    assert [e.label for e in pic.host] == [e.what for e in timeline.entries]
    assert [e.line for e in pic.host] == [e.line for e in timeline.entries]
    assert [e.kind for e in pic.host] == ["timer start", "call", "timer stop"]
    (work,) = pic.device
    assert work.timed and work.state == "still running at the stop" and work.ready_at is None
    assert [(f.at, f.words) for f in pic.flaws] == [(pic.stop, STILL)]
    assert pic.seconds == timeline.seconds == pic.host[pic.stop].seconds
    assert pic.host[1].seconds is None


def test_every_failing_timing_check_of_the_stub_has_a_picture(stub_report: GradeReport) -> None:
    for check in stub_report.checks:
        if check.status == "failed" and check.evidence.timeline is not None:
            assert check.evidence.interval is not None, check.id


def test_the_stub_report_as_html(stub_report: GradeReport) -> None:
    html = render_html(stub_report)
    assert 'data-check="sync-before-stop"' in html and 'class="sg-pic sg-interval"' in html
    assert "still running at the stop" in html and f"⚠ {STILL}" in html
    assert "ordering only" in html and "Not yet" in html


def test_reports_validate_against_the_committed_schema(stub_report: GradeReport,
                                                       report_7: GradeReport) -> None:
    schema = json.loads((ROOT / "docs" / "schema" / schema_file_name(SCHEMA_VERSION))
                        .read_text(encoding="utf-8"))
    for report in (stub_report, report_7):
        jsonschema.validate(json.loads(report.model_dump_json()), schema)
        again = GradeReport.model_validate_json(report.model_dump_json())
        assert again == report


def test_exercise_7_carries_the_learners_own_samples(report_7: GradeReport) -> None:
    assert report_7.status == "passed"
    samples = report_7.check("summary-stats").evidence.samples
    assert samples is not None
    assert {name: len(values) for name, values in samples.items()} == {
        "first_call_s": 3, "warm_s": 5}
    assert all(v > 0 for values in samples.values() for v in values)
    html = render_html(report_7)
    assert html.count('class="sg-pic sg-distributions"') == 1
    assert 'data-samples="first_call_s"' in html and 'data-samples="warm_s"' in html
    assert "Full marks" in html


def test_the_notebook_grades_code_given_as_text() -> None:
    source = course_file("exercise-1", "stub").read_text(encoding="utf-8")
    report = notebook_grade("exercise-1", source=source)
    assert report.submission == CELL_NAME and report.status == "failed"
    assert report.check("sync-before-stop").status == "failed"
    assert report.check("sync-before-stop").evidence.interval is not None


def test_the_cell_that_defines_the_asked_names_is_found() -> None:
    cells = ["import time", "x = 1", "def synchronized_samples(fn, args, repeats):\n"
             "    return None, []\nsyncgrade.notebook.grade('exercise-1')\n", "print(2)"]
    code = source_from_cells(cells, ["synchronized_samples"])
    assert code.splitlines()[0].startswith("def synchronized_samples")
    assert "notebook.grade" not in code and code.rstrip().endswith("import time")
    with pytest.raises(NotebookError, match="synchronized_samples"):
        source_from_cells(cells[:2], ["synchronized_samples"])


def test_passing_checks_carry_their_picture_only_when_asked() -> None:
    """``draw_passing``: each passing interval check of every timing exercise carries the
    picture of the first interval it judged (for ``grade --passing`` and ``%%grade
    --passing``); verdicts and scores are the same as without, and without it no passing
    check carries one (reports stay small)."""
    for exercise in ("exercise-1", "exercise-3"):
        solution = course_file(exercise, "solution")
        drawn = syncgrade.grade(exercise, solution, draw_passing=True)
        plain = solution_grade(exercise).report  # the same file, graded without pictures
        assert [(c.id, c.status, c.points) for c in drawn.checks] == [
            (c.id, c.status, c.points) for c in plain.checks]
        assert drawn.status == "passed"
        pictured = {c.id for c in drawn.checks if c.evidence.interval is not None}
        assert {"times-the-call", "sync-before-stop", "covers-device-work"} <= pictured
        assert {"numpy-match", "sample-count", "runs"}.isdisjoint(pictured)
        assert not [c.id for c in plain.checks if c.evidence.interval is not None]
        page = render_html(drawn, passing=True)
        assert 'class="sg-pic sg-interval"' in page and "⚠" not in page
        assert 'class="sg-pic sg-interval"' not in render_html(drawn)


def test_the_notebook_magic_draws_passing_checks_on_request() -> None:
    from syncgrade.notebook import grade_magic

    cell = course_file("exercise-1", "solution").read_text()
    shown = grade_magic("exercise-1 --passing", cell)
    assert shown.report.status == "passed"
    html = shown._repr_html_()
    assert html is not None and 'class="sg-pic sg-interval"' in html
