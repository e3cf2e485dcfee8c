"""A fault in the grader itself is reported as such: status error, an `internal error`
message, exit code 3, and never the learner's fault."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import NoReturn

import pytest

import syncgrade
from syncgrade import cli
from syncgrade.courses import EXERCISES, get_exercise
from syncgrade.rubric.base import Context, Outcome

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions
SOLUTION = SOLUTIONS / "exercise-1" / "solution.py"


def _broken_check(ctx: Context, **params: object) -> Outcome:
    raise ZeroDivisionError("a bug in a check")


@pytest.fixture
def broken_rubric(monkeypatch: pytest.MonkeyPatch) -> None:
    exercise = get_exercise("exercise-1")
    specs = tuple(dataclasses.replace(s, fn=_broken_check) if s.id == "numpy-match" else s
                  for s in exercise.checks)
    monkeypatch.setitem(EXERCISES, "exercise-1", dataclasses.replace(exercise, checks=specs))


def test_a_failing_check_becomes_an_internal_error_report(broken_rubric: None) -> None:
    report = syncgrade.grade("exercise-1", SOLUTION)
    assert (report.status, report.cause) == ("error", "grader_fault")
    assert report.grading.internal_error is not None
    assert report.grading.internal_error.startswith("internal error: ZeroDivisionError")
    assert "not your fault" in report.summary


def test_the_cli_exits_3_on_an_internal_error(broken_rubric: None,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["exercise-1", str(SOLUTION)]) == cli.EXIT_INTERNAL
    out = capsys.readouterr().out
    assert "internal error" in out and "Traceback" not in out


def test_a_sandbox_that_cannot_start_is_an_internal_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from syncgrade import sandbox

    def no_sandbox(*args: object, **kwargs: object) -> NoReturn:
        raise sandbox.SandboxError("cannot create the jail")

    monkeypatch.setattr(sandbox, "run_sandboxed", no_sandbox)
    monkeypatch.delenv("SYNCGRADE_WARM_POOL", raising=False)  # a cold start, not a pooled child
    report = syncgrade.grade("exercise-1", SOLUTION)
    assert (report.status, report.cause) == ("error", "grader_fault")
    assert "cannot create the jail" in (report.grading.internal_error or "")
