"""The child's measure of its CPU clock's step (sent in the hello frame)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from syncgrade.child.__main__ import cpu_clock_step_ns

TICK = 10_000_000  # gVisor's scheduler tick, in ns


def _reads(values: Iterator[int]) -> Callable[[], int]:
    return lambda: next(values)


def _ticking(per_tick: int) -> Iterator[int]:
    """A clock that counts CPU time in whole ticks, read ``per_tick`` times per tick."""
    n = 0
    while True:
        yield (n // per_tick) * TICK + 3 * TICK  # started mid-way through a run
        n += 1


def test_a_clock_that_counts_ticks_steps_by_one_tick() -> None:
    assert cpu_clock_step_ns(_reads(_ticking(1000)), wall=lambda: 0.0) == TICK


def test_a_fine_clock_steps_by_a_read() -> None:
    fine = iter(range(5_000, 10**9, 700))
    assert cpu_clock_step_ns(_reads(fine), wall=lambda: 0.0) == 700


def test_a_clock_that_does_not_move_in_time_counts_as_the_limit() -> None:
    walls = iter(float(i) for i in range(10**6))
    assert cpu_clock_step_ns(lambda: 42, wall=lambda: next(walls) * 0.01,
                             limit_s=0.05) == 50_000_000


def test_this_threads_clock_is_measured_within_the_limit() -> None:
    step = cpu_clock_step_ns()
    assert 0 < step <= 50_000_000
