"""Every exercise, discovered (never listed): its rubric, folders, statement, stub, shipped
stub copy, solution and mutants agree; every solution gets full marks; every stub fails
cleanly (graded, not full marks, no grader error).

Exercises are discovered from ``syncgrade.rubric.EXERCISES`` and from the folders under
``exercises/`` and ``solutions/``, and the two must agree both ways, so a new exercise is
covered here (and in test_corpus, test_corpus_rules) without editing any test file.
Whether each mutant fails exactly what it declares is ``grade validate``'s job (CI runs
``grade validate --all``); here the mutants' headers are checked without grading.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import syncgrade
from syncgrade.authoring.mutants import mutant_paths, read_mutant
from syncgrade.authoring.validate import folder_ids, stub_copy_problems
from syncgrade.rubric import EXERCISES

ROOT = Path(__file__).resolve().parent.parent
RUBRIC_DIR = ROOT / "src" / "syncgrade" / "rubric"
IDS = sorted(set(EXERCISES) | set(folder_ids(ROOT)),
             key=lambda e: int(e.rsplit("-", 1)[1]))


def _folders(base: str) -> set[str]:
    return {p.name for p in (ROOT / base).iterdir()
            if p.is_dir() and re.fullmatch(r"exercise-\d+", p.name)}


def test_rubrics_and_folders_agree_both_ways() -> None:
    modules = {f"exercise-{m.group(1)}" for p in RUBRIC_DIR.glob("exercise_*.py")
               if (m := re.fullmatch(r"exercise_(\d+)\.py", p.name))}
    assert EXERCISES, "no exercise was discovered"
    assert set(EXERCISES) == modules, "rubric modules and EXERCISES disagree"
    assert _folders("exercises") == set(EXERCISES), "exercises/ and the rubrics disagree"
    assert _folders("solutions") == set(EXERCISES), "solutions/ and the rubrics disagree"
    assert _folders("tests/corpus") == set(EXERCISES), "tests/corpus/ and the rubrics disagree"


def test_exercises_are_numbered_in_order_with_titles() -> None:
    numbers = [int(e.rsplit("-", 1)[1]) for e in EXERCISES]
    assert numbers == sorted(numbers)
    assert all(e.id == key and e.title for key, e in EXERCISES.items())


@pytest.mark.parametrize("exercise", IDS)
def test_every_exercise_has_statement_stub_solution_and_mutants(exercise: str) -> None:
    assert exercise in EXERCISES, f"{exercise} has folders but no rubric module"
    assert (ROOT / "exercises" / exercise / "README.md").read_text().strip()
    assert (ROOT / "exercises" / exercise / "submission.py").read_text().strip()
    assert (ROOT / "solutions" / exercise / "submission.py").is_file()
    assert stub_copy_problems(ROOT, exercise) == []
    mutants = [read_mutant(p) for p in mutant_paths(ROOT, exercise)]
    checks = {c.id for c in EXERCISES[exercise].checks}
    declared = set().union(*(m.must_fail for m in mutants)) if mutants else set()
    assert declared <= checks, f"mutants declare unknown checks {declared - checks}"
    assert checks <= declared, f"no mutant fails {sorted(checks - declared)}"


@pytest.mark.parametrize("exercise", IDS)
def test_solution_gets_full_marks(exercise: str) -> None:
    report = syncgrade.grade(exercise, ROOT / "solutions" / exercise / "submission.py")
    assert report.status == "passed", [(c.id, c.message) for c in report.checks
                                       if c.status != "passed"]
    assert report.score == report.max_score > 0


@pytest.mark.parametrize("exercise", IDS)
def test_stub_fails_cleanly(exercise: str) -> None:
    report = syncgrade.grade(exercise, ROOT / "exercises" / exercise / "submission.py")
    assert report.status == "failed"
    assert report.grading.internal_error is None
    assert report.check("runs").status == "passed"  # it runs; it is just not right yet
    assert report.score < report.max_score
    assert all(c.message for c in report.checks)
    assert all(c.hint for c in report.checks if c.status == "failed")
