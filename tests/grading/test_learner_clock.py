"""The learner's time limit counts the learner's code only (issue 17).

The child's start-up (spawn, Python, ``import jax``, the instrumentation, until its hello
frame) has the grader's own budget (``limits.STARTUP_TIMEOUT_S``): a slow start-up never
spends the learner's ``timeout``, and one past its budget is a grader fault. An exercise
that isolates its calls (exercise-4: a fresh child per call) shares one budget of learner
time among its children; when the learner's code spends it, the report says ``timeout``.

The start-up is slowed by starting the grading child through ``python -c`` with a sleep
before ``syncgrade.child`` runs (``pool.child_command`` is the seam): the sleep stands
for a loaded machine's imports, nothing is measured with it.

The learner's time limit is wall time (a learner's benchmark waits on the device), so on a
loaded machine the same learner code needs more of it: a limit a correct solution must fit
in is stated for an idle machine and scaled by the load budget measured at run time
(``process_support.LoadBudget``, issue 25), and so are the sleeps that must outlast it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from process_support import LoadBudget

from syncgrade import grading, pool
from syncgrade.pool import WarmPool

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions
SOLUTION_1 = SOLUTIONS / "exercise-1" / "solution.py"
SOLUTION_4 = SOLUTIONS / "exercise-4" / "solution.py"


@pytest.fixture(autouse=True)
def no_shared_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cold children (or the test's own pool), started with the command under test."""
    monkeypatch.delenv(pool.ENV_VAR, raising=False)


def _slow_start(monkeypatch: pytest.MonkeyPatch, delay_s: float) -> None:
    """Every grading child started from now sleeps ``delay_s`` before its module runs."""
    real = pool.child_command
    code = (f"import time; time.sleep({delay_s}); import runpy; "
            "runpy.run_module('syncgrade.child', run_name='__main__', alter_sys=True)")

    def slow(hidden: Sequence[Path] = ()) -> pool.ChildCommand:
        command = real(hidden)
        return dataclasses.replace(command, argv=(command.argv[0], "-c", code))

    monkeypatch.setattr(pool, "child_command", slow)


def _looping(solution: Path, before: str) -> str:
    source = solution.read_text()
    looping = source.replace(before, "    while True:\n        pass\n" + before, 1)
    assert looping != source
    return looping


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "pooled"])
def test_a_slow_start_up_does_not_spend_the_learners_time(
        warm: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # Start-up alone takes longer than the whole timeout: counted from spawn (or from
    # delivery to a pooled child still starting), the correct solution would time out.
    # The solution's own time: about 1 s on an idle 2-core machine.
    timeout = round(LoadBudget().limit(3.0), 1)
    delay = timeout + 1.0
    _slow_start(monkeypatch, delay)
    started = time.monotonic()
    if warm:
        with WarmPool(size=1, zygote=False, only_ready=False, wait_s=120 + delay) as children:
            report = grading.grade("exercise-1", SOLUTION_1, timeout=timeout, pool=children)
            assert children.stats.warm == 1, children.stats
    else:
        report = grading.grade("exercise-1", SOLUTION_1, timeout=timeout)
    assert time.monotonic() - started >= delay  # the slowed start-up did happen
    assert (report.status, report.cause) == ("passed", "graded"), report.summary
    assert report.grading.timeout_s == timeout


def test_a_learner_loop_after_a_slow_start_up_still_times_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _slow_start(monkeypatch, 2.0)
    source = _looping(SOLUTION_1, "    samples = []\n")
    report = grading.grade("exercise-1", source=source, timeout=2)
    assert (report.status, report.cause) == ("failed", "timeout"), report.summary
    assert report.grading.termination == "timeout"
    assert "2 s time limit" in report.summary, report.summary
    assert report.grading.internal_error is None


def test_a_start_up_past_the_graders_budget_is_a_grader_fault(
        monkeypatch: pytest.MonkeyPatch) -> None:
    budget = LoadBudget()
    bound = budget.limit(20.0)  # the grade's own work around a 1 s start-up budget
    _slow_start(monkeypatch, 10 * bound)
    monkeypatch.setattr("syncgrade.grading.pipeline.STARTUP_TIMEOUT_S", 1.0)
    started = time.monotonic()
    report = grading.grade("exercise-1", SOLUTION_1, timeout=min(3 * bound, 3600))
    # Stopped at the start-up budget, not at the timeout (nor at the end of the sleep).
    assert time.monotonic() - started < min(budget.bound(20.0), 2 * bound)
    assert (report.status, report.cause) == ("error", "grader_fault"), report.summary
    assert report.grading.internal_error is not None
    assert "start-up budget of 1.0 s (the start-up cap)" in report.grading.internal_error


def test_isolated_calls_share_only_the_learners_time() -> None:
    # A cold child per call, each with a start-up of a second or more: under the old
    # shared wall budget (and its 5 s floor per further child) the reference solution
    # was reported "Grading could not finish" at any timeout this small. Its learner
    # time in all is about 1.5 s on an idle 2-core machine; the start-ups stretch with
    # the load as much as the learner's time does.
    report = grading.grade("exercise-4", SOLUTION_4, timeout=round(LoadBudget().limit(4.0), 1))
    assert (report.status, report.cause) == ("passed", "graded"), report.summary


def test_isolated_calls_that_spend_the_budget_time_out() -> None:
    # 1.5 s of the learner's own time in each call (three or more): over 4 s in all, but
    # under it in any one child.
    source = SOLUTION_4.read_text().replace(
        "    larger_host = rng.normal(",
        "    time.sleep(1.5)\n    larger_host = rng.normal(", 1)
    assert source != SOLUTION_4.read_text()
    report = grading.grade("exercise-4", source=source, timeout=4)
    assert (report.status, report.cause) == ("failed", "timeout"), report.summary
    assert report.grading.termination == "timeout"
    assert report.grading.internal_error is None
