"""How far a lesson's mistake lies outside ``interval-clean``'s CPU bound, measured per
interval in a real grade (docs/checks.md, "interval-clean": the margin the corpus keeps).

:func:`measured_judgements` spies on :func:`syncgrade.rubric.checks_intervals.measured_flaw`
(the rubric runs in the grading process, so the grade a test makes anyway is measured: no
extra grade) and keeps, for each list ``interval-clean`` judged on what it measures, its
intervals, the CPU clock's step and which measure failed it.
:func:`assert_far_outside_the_bound` then asks that the check's failure hold with each
interval's bound :data:`LESSON_MARGIN` times as large: some list that failed fails still."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pytest

from syncgrade.analysis import UNRECORDED_BLOCK_BOUND_NS, Interval
from syncgrade.rubric import checks_intervals

LESSON_MARGIN = 2
"""A flawed file's (or mutant's) host work in the intervals that fail ``interval-clean``
on CPU time must fail it still with every bound this many times as large: load, another
CPU model or a faster NumPy must not bring it back under (exercise-3's recompute, at
1.0-1.3 ms against the 1 ms bound, passed about 1 grade in 7)."""

CPU_WORK = checks_intervals.cpu_work_interval
"""The judgement itself, kept before any spy replaces it."""
BLOCKING = checks_intervals.blocking_interval
"""The judgement of unrecorded blocking, kept the same way."""
MEASURED = checks_intervals.measured_flaw
"""Which of the two decides a list, kept the same way."""

COARSE_STEP_NS = 1_000_000
"""A CPU clock that moves by this much or more at a time (gVisor's 10 ms ticks, the TPU
machines) measures a few milliseconds of work per sample as zero or one tick: there the
files whose header says ``# tpu-may-pass: interval-clean`` are not held to the margin."""


@dataclass(frozen=True)
class CpuJudgement:
    """One list's judgement on host CPU time: its intervals, the clock's step, and the
    interval ``interval-clean`` showed for host CPU time (``None``: the list passed, or
    failed on unrecorded blocking instead, ``measured_flaw``)."""

    intervals: tuple[Interval, ...]
    step_ns: int
    over: Interval | None

    @property
    def judged(self) -> list[Interval]:
        """The intervals the CPU bound is judged in (no compilation, CPU stamps)."""
        return [i for i in self.intervals
                if not i.compiles and i.unexplained_cpu_ns is not None]

    def fails_at(self, factor: float) -> bool:
        """Whether the list fails with each interval's bound (``cpu_bound_ns`` plus the
        clock's step for each clock its figure is read from) ``factor`` times as large.
        Asked through ``cpu_work_interval`` itself, whose bounds differ only by an added
        step: the largest judged bound,
        ``factor - 1`` times over, is added to every one (at least ``factor`` times each)."""
        bounds = [i.cpu_bound_ns + self.step_ns * i.cpu_clocks for i in self.judged]
        extra = int((factor - 1) * max(bounds, default=0))
        return CPU_WORK(list(self.intervals), self.step_ns + extra) is not None

    def table(self) -> str:
        """Each judged interval's unexplained CPU time against its bound, in ms."""
        return ", ".join(f"{(i.unexplained_cpu_ns or 0) / 1e6:.2f}/"
                         f"{(i.cpu_bound_ns + self.step_ns * i.cpu_clocks) / 1e6:.2f}"
                         for i in self.judged)


@dataclass(frozen=True)
class BlockingJudgement:
    """One list's judgement on unrecorded blocking: its intervals and the interval
    ``interval-clean`` showed for blocking (``None``: the list passed, or failed on host
    CPU time instead, ``measured_flaw``)."""

    intervals: tuple[Interval, ...]
    over: Interval | None
    held: checks_intervals.InterpreterHolds = checks_intervals.NO_HOLDS
    allowance_ns: int = checks_intervals.CPU_EXCESS_ALLOWANCE_NS

    def fails_at(self, factor: float) -> bool:
        """Whether the list fails with the bound ``factor`` times as large."""
        return BLOCKING(list(self.intervals), int(factor * UNRECORDED_BLOCK_BOUND_NS),
                        held=self.held, allowance_ns=self.allowance_ns) is not None

    def table(self) -> str:
        """Each judged interval's unrecorded blocking (less the grader's holds), in ms."""
        return ", ".join(f"{(self.held.blocked_ns(i) or 0) / 1e6:.2f}"
                         for i in self.intervals if i.unrecorded_blocked_ns is not None)


def assert_blocking_far_outside_the_bound(seen: list[BlockingJudgement]) -> None:
    """Every list that failed ``interval-clean`` on unrecorded blocking fails it still at
    :data:`LESSON_MARGIN` times the bound: a pause the corpus holds is no measurement
    near the bound."""
    for judgement in seen:
        assert judgement.over is None or judgement.fails_at(LESSON_MARGIN), (
            f"interval-clean fails this list on unrecorded blocking, but not at "
            f"{LESSON_MARGIN}x its bound (blocking per interval, ms: {judgement.table()})")


@dataclass(frozen=True)
class Judgements:
    """Every list ``interval-clean`` judged on what it measures, in order, once as a CPU
    judgement and once as a blocking one; each ``over`` is set only on the measure that
    decided the list's verdict (:func:`~syncgrade.rubric.checks_intervals.measured_flaw`):
    the margin asked is the margin of the reported flaw."""

    cpu: list[CpuJudgement]
    blocking: list[BlockingJudgement]


def measured_judgements(monkeypatch: pytest.MonkeyPatch) -> Judgements:
    """From now on (for the test), every measured judgement of ``interval-clean`` in this
    process (:class:`Judgements`)."""
    seen = Judgements([], [])

    def spy(intervals: list[Interval], clock_step_ns: int = 0,
            held: checks_intervals.InterpreterHolds = checks_intervals.NO_HOLDS,
            blocking_allowance: int = checks_intervals.CPU_EXCESS_ALLOWANCE_NS
            ) -> tuple[Literal["cpu", "blocked"], Interval] | None:
        found = MEASURED(intervals, clock_step_ns, held, blocking_allowance)
        kind, over = found if found is not None else (None, None)
        seen.cpu.append(CpuJudgement(tuple(intervals), clock_step_ns,
                                     over if kind == "cpu" else None))
        seen.blocking.append(BlockingJudgement(tuple(intervals),
                                               over if kind == "blocked" else None,
                                               held, blocking_allowance))
        return found

    monkeypatch.setattr(checks_intervals, "measured_flaw", spy)
    return seen


def assert_far_outside_the_bound(seen: list[CpuJudgement], may_pass_coarse: bool = False
                                 ) -> None:
    """When ``interval-clean`` failed on host CPU time, its verdict holds at
    :data:`LESSON_MARGIN` times the bound: at least one of the lists that failed fails
    still. A list that fails narrowly beside one that fails far (exercise-1's hidden
    workload, a call under 2 ms, beside its 20 ms probe, with a learner thread busy
    through both) cannot turn the verdict; a verdict that rests on narrow lists alone
    can. A failure on a recorded event (a print, a sleep, eager work, a host callback) is
    no measurement and needs no margin; nor, on a coarse clock (:data:`COARSE_STEP_NS`),
    work that may pass there (``may_pass_coarse``: a file's ``# tpu-may-pass:
    interval-clean``)."""
    failed = [j for j in seen if j.over is not None
              and not (may_pass_coarse and j.step_ns >= COARSE_STEP_NS)]
    if not failed or any(j.fails_at(LESSON_MARGIN) for j in failed):
        return
    tables = "; ".join(j.table() for j in failed)
    raise AssertionError(
        f"interval-clean fails on host CPU time, but no list of it at {LESSON_MARGIN}x "
        f"its bound: make the hidden inputs larger (unexplained/bound per interval, "
        f"ms: {tables})")
