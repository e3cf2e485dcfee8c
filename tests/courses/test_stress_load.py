"""Verdicts hold on a loaded machine (nightly: ``bash .ci/run -m slow``).

Two pure-Python busy loops keep the CPUs busy while every exercise with timed samples has
its solution and one no-wait mutant graded ``SYNCGRADE_STRESS_ROUNDS`` times each
(default 20): the solution must get full marks every time, the mutant must fail exactly
its declared ``expect-fail`` ids every time, no verdict may flip between rounds, and no grade
may end in a timeout or a crash. A verdict that noise can move is a grader bug: the race
checks are calibrated for a shared, loaded machine, and this is where that is measured.

Beside the same two loops, every correct corpus file of every exercise is graded
``SYNCGRADE_STRESS_CORPUS_ROUNDS`` times (default 1): each must get full marks every time
(its expected verdict; a correct file's only failure under load would be a flip).

Run a short version with ``SYNCGRADE_STRESS_ROUNDS=2 pytest -m slow
tests/courses/test_stress_load.py -k exercise-1``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus_support import ROOT, CorpusCase, corpus_cases, failed_ids

import syncgrade
from syncgrade.authoring.mutants import Mutant, read_mutants

ROUNDS = int(os.environ.get("SYNCGRADE_STRESS_ROUNDS", "20"))
CORPUS_ROUNDS = int(os.environ.get("SYNCGRADE_STRESS_CORPUS_ROUNDS", "1"))
CORRECT = [case for case in corpus_cases() if not case.expected_failures]
SPINNERS = 2
"""Busy processes beside the grades: as many as the CI machine has cores."""

NO_WAIT = {
    "exercise-1": "no_wait",
    "exercise-3": "no_wait",
    "exercise-4": "no_wait",
    "exercise-5": "no_wait",
    "exercise-6": "no_wait",
    "exercise-7": "no_wait",
    # exercise-8's request always reads back (which waits); its no-wait mistake is to stop
    # the timer when fn returns and read the result back after the stop.
    "exercise-8": "readback_after_stop",
    "exercise-9": "no_wait",
    "exercise-10": "no_wait",
}
"""Every exercise with timed samples, and the mutant that leaves out the output wait."""

Round = tuple[str, str, frozenset[str], list[tuple[str, str, str]]]
"""One grade: status, cause, failed ids, and every check as (id, status, message)."""

_SPIN = "while True:\n    pass\n"


def mutant(exercise: str, name: str) -> Mutant:
    """The mutant ``name`` of ``solutions/<exercise>/mutants.toml`` (docs/authoring.md,
    "Mutants")."""
    found = [m for m in read_mutants(None, exercise) if m.name == name]
    assert found, f"{exercise} has no mutant {name}"
    return found[0]


@pytest.fixture(scope="module")
def cpu_load() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Two processes spinning a pure-Python loop for the whole module, killed after it."""
    spinners: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(SPINNERS):
            spinners.append(subprocess.Popen([sys.executable, "-c", _SPIN],
                                             stdin=subprocess.DEVNULL,
                                             stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL))
        yield spinners
    finally:
        for proc in spinners:
            proc.kill()
        for proc in spinners:
            proc.wait(timeout=30)


def _grade_rounds(exercise: str, path: Path | None, spinners: list[subprocess.Popen[bytes]],
                  source: str | None = None, name: str | None = None) -> list[Round]:
    """``ROUNDS`` grades of ``path`` (or of ``source``, shown as ``name``)."""
    rounds: list[Round] = []
    for _ in range(ROUNDS):
        assert all(proc.poll() is None for proc in spinners), "a load process died"
        report = syncgrade.grade(exercise, path, source=source, display_name=name)
        rounds.append((report.status, report.cause, failed_ids(report),
                       [(c.id, c.status, c.message) for c in report.checks]))
    return rounds


def _no_crash(name: str, rounds: list[Round]) -> None:
    causes = [cause for _, cause, _, _ in rounds]
    assert not {"timeout", "crashed"} & set(causes), f"{name}: causes {causes}"


def _no_flip(name: str, rounds: list[Round]) -> None:
    verdicts = {failed for _, _, failed, _ in rounds}
    assert len(verdicts) == 1, (
        f"{name}: the verdict flipped under load: "
        f"{sorted(sorted(v) for v in verdicts)}; rounds: "
        f"{[sorted(failed) for _, _, failed, _ in rounds]}")


@pytest.mark.slow
@pytest.mark.parametrize("exercise", list(NO_WAIT))
def test_verdicts_hold_under_load(exercise: str,
                                  cpu_load: list[subprocess.Popen[bytes]]) -> None:
    solution = ROOT / "solutions" / exercise / "solution.py"
    no_wait = mutant(exercise, NO_WAIT[exercise])
    declared = no_wait.expected_failures
    assert "sync-before-stop" in declared, f"{no_wait.name} is not a no-wait mutant"

    solution_rounds = _grade_rounds(exercise, solution, cpu_load)
    mutant_rounds = _grade_rounds(exercise, None, cpu_load,
                                  source=no_wait.apply(solution.read_text(encoding="utf-8")),
                                  name=f"{no_wait.name}.py")

    for name, rounds in (("solution", solution_rounds), (no_wait.name, mutant_rounds)):
        _no_crash(name, rounds)
        _no_flip(name, rounds)
    for status, _, failed, checks in solution_rounds:
        assert status == "passed" and not failed, [c for c in checks if c[1] != "passed"]
    for _, _, failed, checks in mutant_rounds:
        assert failed == declared, (
            f"{no_wait.name}: failed {sorted(failed)}, declared {sorted(declared)}",
            [c for c in checks if c[0] in failed ^ declared])


@pytest.mark.slow
@pytest.mark.parametrize("case", CORRECT, ids=[case.id for case in CORRECT])
def test_correct_corpus_files_keep_full_marks_under_load(
        case: CorpusCase, cpu_load: list[subprocess.Popen[bytes]]) -> None:
    # The default timeout: a limit is the product's, and the product's default is what
    # a loaded grading machine runs with.
    rounds = [_grade_rounds_of(case, cpu_load) for _ in range(CORPUS_ROUNDS)]
    _no_crash(case.id, rounds)
    for status, cause, failed, checks in rounds:
        assert (status, cause, failed) == ("passed", "graded", frozenset()), (
            case.id, [c for c in checks if c[1] != "passed"])


def _grade_rounds_of(case: CorpusCase, spinners: list[subprocess.Popen[bytes]]) -> Round:
    assert all(proc.poll() is None for proc in spinners), "a load process died"
    report = syncgrade.grade(case.exercise, case.path)
    return (report.status, report.cause, failed_ids(report),
            [(c.id, c.status, c.message) for c in report.checks])
