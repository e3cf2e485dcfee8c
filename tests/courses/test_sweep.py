"""Every exercise of the built-in course, discovered (never listed): its folder holds a
declaration that loads, a statement, a stub, a solution and mutants that agree; every
solution gets full marks. That every stub fails cleanly (graded, not full marks, no grader
error) is tests/picture/test_picture_report.py's, which grades each stub once for its pictures.

Exercises are discovered from the course folder (``exercises/exercise-N/``), so a
new exercise is covered here (and in test_corpus, test_corpus_rules) without editing any
test file. Whether each mutant fails exactly what it declares is ``grade validate``'s job
(CI runs ``grade validate --all``); here the mutants' entries are checked without grading.
"""

from __future__ import annotations

import re

import pytest
from solution_support import solution_grade

from syncgrade.authoring.mutants import read_mutants
from syncgrade.courses import BUILTIN_ROOT as COURSE
from syncgrade.courses import EXERCISES, RUBRIC_ERRORS, builtin_course

IDS = list(builtin_course().files)


def test_every_exercise_folder_declares_its_exercise() -> None:
    folders = {p.name for p in COURSE.iterdir()
               if p.is_dir() and re.fullmatch(r"exercise-\d+", p.name)}
    assert EXERCISES, "no exercise was discovered"
    assert RUBRIC_ERRORS == {}
    assert set(IDS) == folders == set(EXERCISES), "exercise folders and declarations disagree"


def test_exercises_are_numbered_in_order_with_titles() -> None:
    numbers = [int(e.rsplit("-", 1)[1]) for e in EXERCISES]
    assert numbers == sorted(numbers)
    assert all(e.id == key and e.title for key, e in EXERCISES.items())


@pytest.mark.parametrize("exercise", IDS)
def test_every_exercise_has_statement_stub_solution_and_mutants(exercise: str) -> None:
    assert exercise in EXERCISES, f"{exercise} has a folder but no valid declaration"
    assert (COURSE / exercise / "README.md").read_text().strip()
    assert (COURSE / exercise / "stub.py").read_text().strip()
    assert builtin_course().folder(exercise).solution.is_file()
    mutants = read_mutants(None, exercise)
    checks = {c.id for c in EXERCISES[exercise].checks}
    declared = set().union(*(m.expected_failures for m in mutants))
    assert declared <= checks, f"mutants declare unknown checks {declared - checks}"
    assert checks <= declared, f"no mutant fails {sorted(checks - declared)}"


@pytest.mark.parametrize("exercise", IDS)
def test_solution_gets_full_marks(exercise: str) -> None:
    report = solution_grade(exercise).report  # a real grade, shared in this process
    assert report.status == "passed", [(c.id, c.message) for c in report.checks
                                       if c.status != "passed"]
    assert report.score == report.max_score > 0
