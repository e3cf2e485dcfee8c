"""A grade ends within ``timeout + overhead`` (issue 26).

The learner's timeout counts their own code; the grader's own work (each child's
start-up, the stop, reading results) has one overall budget, ``overhead``, for the whole
grade, not one per stage: each child's start-up gets what the earlier stages left, less
``limits.STOP_RESERVE_S``. So a platform whose limit is above ``timeout + overhead``
always gets a report (and a results file) before it kills the run.

The arithmetic is pinned on a fake clock (no wall time); the end-to-end tests slow the
child's start-up with a sleep (``pool.child_command`` is the seam, as in
test_learner_clock.py) and assert the bound the grader itself enforces.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from syncgrade import grading, pool, sandbox, timing
from syncgrade.grading import pipeline
from syncgrade.grading.cause import GraderKilled, OutOfTime, StartupOverrun, fault_cause
from syncgrade.grading.run import ChildRun
from syncgrade.limits import STOP_RESERVE_S, Deadline, check_overhead
from syncgrade.platforms import entry
from syncgrade.timing import FakeClock

ROOT = Path(__file__).resolve().parents[2]
SOLUTION_1 = ROOT / "solutions" / "exercise-1" / "solution.py"


@pytest.fixture(autouse=True)
def no_shared_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pool.ENV_VAR, raising=False)


# ------------------------------------------------------------------ the arithmetic


def _fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A clock at 0 that the grader reads through the timing seam until the test ends."""
    clock = FakeClock(start=0.0)
    monkeypatch.setattr(timing, "monotonic", clock.monotonic)
    monkeypatch.setattr(timing, "sleep", clock.sleep)
    return clock


def _outcome(clock_s: float, *, killed: bool = False) -> sandbox.SandboxOutcome:
    empty = sandbox.Captured("", False, 0)
    return sandbox.SandboxOutcome(
        termination="signal" if killed else "exited", returncode=-9 if killed else 0,
        signal_name="SIGKILL" if killed else None, wall_s=clock_s, stdout=empty,
        stderr=empty, frames=[], frames_truncated=False, stack_dump=None, escaped_killed=0,
        protections=[], clock_s=clock_s, unexplained_kill=killed)


def _runner(clock: FakeClock, steps: list[tuple[float, bool]], seen: list[sandbox.Limits]
            ) -> Any:
    """A child run that takes ``steps[i]`` (seconds, killed from outside) of the fake
    clock and records the limits it was given."""

    def run(limits: sandbox.Limits) -> ChildRun:
        seen.append(limits)
        seconds, killed = steps[len(seen) - 1]
        clock.now += seconds
        return ChildRun(_outcome(seconds, killed=killed), b"", ())

    return run


def test_each_start_up_gets_what_the_earlier_stages_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _fake_clock(monkeypatch)
    seen: list[sandbox.Limits] = []
    run = _runner(clock, [(6.0, False), (7.0, False), (1.0, False)], seen)
    runs: list[ChildRun] = []
    deadline = Deadline.after(0.0, 10.0, 20.0)
    pipeline.run_group(runs, run, sandbox.Limits(), 10.0, deadline)
    pipeline.run_group(runs, run, sandbox.Limits(), 8.0, deadline)
    # The learner's time is not set aside before the start-up (that would charge a slow
    # start-up to it): each start-up, and the whole child, may take what is left before
    # the deadline, less the stop's reserve; the child then must end by it.
    assert [lim.startup_s for lim in seen] == [30 - STOP_RESERVE_S, 30 - 6 - STOP_RESERVE_S]
    assert [lim.end_s for lim in seen] == [lim.startup_s for lim in seen]
    assert [lim.wall_s for lim in seen] == [10.0, 8.0]
    # 13 s gone: the third child gets 14 s in all, not the 27 s the first one had; a
    # per-stage budget would have given it as much.
    pipeline.run_group(runs, run, sandbox.Limits(), 8.0, deadline)
    assert seen[-1].end_s == pytest.approx(30 - 13 - STOP_RESERVE_S)


def test_the_grader_time_a_child_ran_out_of_is_never_the_learners(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A start-up past the budget it was given names that budget and where it came from
    (not the 120 s cap that did not apply); a child the deadline stopped before it had
    its full timeout is a grader fault, not charged, never the learner's timeout."""
    clock = _fake_clock(monkeypatch)

    def ended(**fields: Any) -> Any:
        def run(limits: sandbox.Limits) -> ChildRun:
            clock.now += limits.end_s or 0.0
            outcome = dataclasses.replace(_outcome(0.0), termination="timeout", **fields)
            return ChildRun(outcome, b"", ())
        return run

    exercism = Deadline.after(0.0, 8.0, 9.0)  # Exercism's defaults
    with pytest.raises(StartupOverrun, match=r"start-up budget of 14\.0 s \(what was left "
                       r"before the grade's deadline \(timeout \+ overhead: 8 \+ 9 s\), "
                       "less 3 s"):
        pipeline.run_group([], ended(startup_timeout=True), sandbox.Limits(), 8.0, exercism)
    clock.now = 0.0
    with pytest.raises(OutOfTime, match=r"start-up took 9\.0 s, so the grade's deadline "
                       r"\(timeout \+ overhead: 8 \+ 9 s\) stopped the submission after "
                       r"5\.0 s of its 8 s: not charged"):
        pipeline.run_group([], ended(cut_short=True, wall_s=14.0, clock_s=5.0),
                           sandbox.Limits(), 8.0, exercism)


def test_a_child_starts_with_whatever_is_left_and_none_without(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36: a child starts while anything is left beyond the stop reserve, even less
    than the learner's timeout (its code may well end in time, and a cut-short run is
    not charged); before, 7 s left for an 8 s timeout was a fault at once, though a
    platform entry point's child had been starting for seconds and the reference
    solution runs in under one. With nothing left beyond the reserve, no child starts."""
    clock = _fake_clock(monkeypatch)
    clock.now = 10.0
    seen: list[sandbox.Limits] = []
    runs: list[ChildRun] = []
    deadline = Deadline.after(0.0, 8.0, 12.0)  # at 20 s
    pipeline.run_group(runs, _runner(clock, [(1.0, False)], seen), sandbox.Limits(), 8.0,
                       deadline)
    assert len(runs) == 1 and seen[0].wall_s == 8.0 and seen[0].end_s == pytest.approx(7.0)
    clock.now = 17.5
    with pytest.raises(OutOfTime, match=r"no grading child was started: 2\.5 s were left "
                       r"before the grade's deadline \(timeout \+ overhead: 8 \+ 12 s\), "
                       r"too few for the 3 s kept to stop a child; not charged"):
        pipeline.run_group([], _runner(clock, [], []), sandbox.Limits(), 8.0, deadline)


def test_a_budget_counted_from_an_earlier_start_is_named_with_its_numbers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36: a platform entry point counts ``timeout + overhead`` from its process's
    start (``started_at``); when its own start used the room a child needed, the fault
    names that budget, 8 + 9 s from the start, not the overhead left when the grade was
    called (before: the entry passed that remainder, and the words said only "timeout +
    overhead"). No child starts; the fake clock reads 14.5 s since the start."""
    clock = _fake_clock(monkeypatch)
    clock.now = 14.5
    report = grading.grade_result("exercise-1", SOLUTION_1, timeout=8, overhead=9,
                                  started_at=0.0).report
    assert (report.status, report.cause) == ("error", "grader_fault")
    assert ("no grading child was started: 2.5 s were left before the grade's deadline "
            "(timeout + overhead: 8 + 9 s), too few for the 3 s kept to stop a child") in str(
        report.grading.internal_error)
    assert fault_cause(report.grading.internal_error) == "out_of_time"


def test_the_entry_point_counts_its_budget_from_its_start(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry hands the grade its whole configured budget and its own start, so the
    grade's deadline and its words are the platform's (``timeout + overhead`` from the
    process's start), and refuses at once, in the same words, when its start left too
    little."""
    config = entry.Config(exercise="exercise-1", timeout=8.0, overhead=9.0)
    begun = time.monotonic() - 10.0  # a start 10 s ago: 7 s left, 4 of them usable
    with pytest.raises(entry.OutOfTime, match=r"before the grade's deadline \(timeout \+ "
                       r"overhead: 8 \+ 9 s\), too few for the learner's 8 s"):
        entry.check_time_left(config, begun)
    entry.check_time_left(config, time.monotonic())  # a fresh start: room enough


def test_a_kill_from_outside_is_retried_only_within_the_deadline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _fake_clock(monkeypatch)
    seen: list[sandbox.Limits] = []
    runs: list[ChildRun] = []
    pipeline.run_group(runs, _runner(clock, [(3.0, True), (2.0, False)], seen),
                       sandbox.Limits(), 5.0, Deadline.after(0.0, 5.0, 20.0))
    assert len(seen) == 2 and len(runs) == 1  # only the retry's run is graded
    assert not runs[0].outcome.unexplained_kill
    # Killed late: nothing is left for a retry before the deadline.
    clock.now, seen = 0.0, []
    with pytest.raises(GraderKilled, match="could not be run again: 2.5 s were left before "
                       r"the grade's deadline \(timeout \+ overhead: 5 \+ 15 s\), too few "
                       "for the 3 s kept to stop a child"):
        pipeline.run_group([], _runner(clock, [(17.5, True)], seen), sandbox.Limits(),
                           5.0, Deadline.after(0.0, 5.0, 15.0))
    assert len(seen) == 1


def test_an_overhead_within_the_stop_reserve_is_refused() -> None:
    with pytest.raises(ValueError, match="more than"):
        check_overhead(STOP_RESERVE_S)
    assert check_overhead(20) == 20.0


# ------------------------------------------------------------------ end to end


def _slow_start(monkeypatch: pytest.MonkeyPatch, delay_s: float) -> None:
    """Every grading child started from now sleeps ``delay_s`` before its module runs."""
    real = pool.child_command
    code = (f"import time; time.sleep({delay_s}); import runpy; "
            "runpy.run_module('syncgrade.child', run_name='__main__', alter_sys=True)")

    def slow(hidden: Sequence[Path] = ()) -> pool.ChildCommand:
        command = real(hidden)
        return dataclasses.replace(command, argv=(command.argv[0], "-c", code))

    monkeypatch.setattr(pool, "child_command", slow)


def test_a_slow_start_up_ends_within_timeout_plus_overhead(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, the start-up alone had 120 s of its own, whatever the grade's total.
    _slow_start(monkeypatch, 600.0)
    started = time.monotonic()
    report = grading.grade("exercise-1", SOLUTION_1, timeout=3, overhead=6)
    assert time.monotonic() - started <= 3 + 6
    assert (report.status, report.cause) == ("error", "grader_fault"), report.summary
    assert fault_cause(report.grading.internal_error) == "startup"


def test_a_start_up_longer_than_the_overhead_is_not_charged_to_the_learner(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36: a start-up that takes longer than the overhead (a loaded machine's
    ``import jax``) uses the learner's time not yet spent: the grade passes. When the
    learner's full timeout was set aside first, the start-up had 8 - 3 = 5 s here, and
    this 6 s sleep alone overran it."""
    _slow_start(monkeypatch, 6.0)
    report = grading.grade("exercise-1", SOLUTION_1, timeout=30, overhead=8)
    assert (report.status, report.cause) == ("passed", "graded"), (
        report.summary, report.grading.internal_error)


def test_a_hanging_submission_ends_within_timeout_plus_overhead() -> None:
    source = "while True:\n    pass\n"
    started = time.monotonic()
    report = grading.grade("exercise-1", source=source, timeout=2, overhead=60)
    assert time.monotonic() - started <= 2 + 60
    assert report.grading.seconds <= 2 + 60
    assert (report.status, report.cause) == ("failed", "timeout"), report.summary


def test_a_platform_run_ends_within_its_configured_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Exercism's entry, as its defaults configure it (8 + 9 s: Exercism stops a runner
    at 20 s), with the start-up slowed past its budget: the results file still comes,
    in time, as an error result (never the learner's failure)."""
    _slow_start(monkeypatch, 600.0)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "submission.py").write_text("while True:\n    pass\n")
    started = time.monotonic()
    code = entry.exercism_main(["exercise-1", str(tmp_path / "in"), str(tmp_path / "out")],
                               started_at=started)
    assert time.monotonic() - started <= entry.EXERCISM_TIMEOUT_S + entry.EXERCISM_OVERHEAD_S
    assert code == 0
    results = (tmp_path / "out" / "results.json").read_text()
    assert '"status": "error"' in results


def test_the_run_after_a_kill_is_the_retry_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36: the run after a kill from outside is made by ``retry`` (the engine's:
    a cold child, whose start-up is this grade's, so a kill in it counts as the second;
    a pool would wait for a pooled child and hide its death in start-up by starting
    another). Two kills, one of them in that start-up, are a grader fault."""
    clock = _fake_clock(monkeypatch)
    first: list[sandbox.Limits] = []
    again: list[sandbox.Limits] = []
    with pytest.raises(GraderKilled, match="twice"):
        pipeline.run_group([], _runner(clock, [(1.0, True)], first), sandbox.Limits(),
                           5.0, Deadline.after(0.0, 5.0, 55.0),
                           retry=_runner(clock, [(0.5, True)], again))
    assert (len(first), len(again)) == (1, 1)
    runs: list[ChildRun] = []
    pipeline.run_group(runs, _runner(clock, [(1.0, False)], []), sandbox.Limits(), 5.0,
                       Deadline.after(0.0, 5.0, 55.0), retry=_runner(clock, [], again))
    assert len(runs) == 1 and len(again) == 1  # no kill: no retry
