"""Every shipped solution gets full marks; every shipped stub fails cleanly (graded, not
full marks, no grader error)."""

from __future__ import annotations

from pathlib import Path

import pytest

import syncgrade
from syncgrade.rubric import EXERCISES

ROOT = Path(__file__).resolve().parent.parent


def test_all_eight_exercises_are_registered() -> None:
    assert list(EXERCISES) == [f"exercise-{n}" for n in range(1, 9)]
    assert all(e.title for e in EXERCISES.values())


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_solution_gets_full_marks(exercise: str) -> None:
    report = syncgrade.grade(exercise, ROOT / "solutions" / exercise / "submission.py")
    assert report.status == "passed", [(c.id, c.message) for c in report.checks
                                       if c.status != "passed"]
    assert report.score == report.max_score > 0


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_stub_fails_cleanly(exercise: str) -> None:
    report = syncgrade.grade(exercise, ROOT / "exercises" / exercise / "submission.py")
    assert report.status == "failed"
    assert report.grading.internal_error is None
    assert report.check("runs").status == "passed"  # it runs; it is just not right yet
    assert report.score < report.max_score
    assert all(c.message for c in report.checks)
    assert all(c.hint for c in report.checks if c.status == "failed")


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_every_exercise_has_statement_stub_and_solution(exercise: str) -> None:
    assert (ROOT / "exercises" / exercise / "README.md").read_text().strip()
    assert "def " in (ROOT / "exercises" / exercise / "submission.py").read_text() or (
        exercise == "exercise-2")
    assert (ROOT / "solutions" / exercise / "submission.py").is_file()
