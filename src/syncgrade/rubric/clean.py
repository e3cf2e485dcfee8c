"""``interval-clean``: every microsecond between the start read and the stop read is
accounted for (docs/checks.md, "interval-clean").

An interval may hold only what its samples are declared to measure: the timed calls,
their waits, and the placement, compilation and readback the contract declares (those
have checks of their own). This check fails an interval that holds the learner's own
host work besides: a write to stdout/stderr (``print``), a ``time.sleep``, eager (not
jitted) array work on anything but the timed output, or more host CPU time than
:data:`~syncgrade.analysis.UNEXPLAINED_CPU_BOUND_NS` that no recorded operation explains
(:attr:`syncgrade.analysis.Interval.unexplained_cpu_ns`: NumPy work, Python loops). The
CPU bound is not judged in an interval that compiles: the compilation checks own it.
"""

from __future__ import annotations

from syncgrade.analysis import UNEXPLAINED_CPU_BOUND_NS, Interval
from syncgrade.rubric.base import Context, Outcome, Skip, ValuePath
from syncgrade.rubric.intervals import (
    Verdict,
    flaw_facts,
    line_of,
    timed_intervals,
    with_timeline,
)
from syncgrade.trace import Eager, Event, Sleep, Write

MOVE_OUT = "do it before the timer starts or after it stops"
OTHER_WORK = "do other host work before the timer starts or after it stops"


def interval_clean(ctx: Context, call: str, samples: ValuePath | None = None) -> Outcome:
    """No judged interval holds a print, a sleep, eager array work on anything but the
    timed output, or unexplained host CPU time above the bound."""
    try:
        intervals = timed_intervals(ctx, call, samples)
    except Verdict as verdict:
        return verdict.outcome
    except Skip as skip:
        return Outcome.skip(str(skip))
    for interval in intervals:
        found = interval.host_activity()
        if found:
            message, hint = _activity(found[0])
            return Outcome.fail(message, hint, with_timeline(
                ctx, call, interval, **flaw_facts("host work", interval)))
        # An interval that compiles spends host CPU on tracing and lowering around the
        # call; the compilation checks (warmup-excluded, jitted, first-call-includes-
        # compile) own that interval, and its CPU time is no measure of the learner's
        # own work (one lead per cause, and no verdict resting on compile-time noise).
        unexplained = None if interval.compiles else interval.unexplained_cpu_ns
        if unexplained is not None and unexplained > UNEXPLAINED_CPU_BOUND_NS:
            return Outcome.fail(
                f"{_where(interval)} {_ms(unexplained)} of host CPU time inside the timed "
                "interval that is neither the timed call nor its wait (NumPy work, a Python "
                "loop, a conversion): the sample includes it.",
                f"Time only the call and its wait: {OTHER_WORK}.",
                with_timeline(ctx, call, interval, **flaw_facts("host work", interval),
                              unexplained_ms=round(unexplained / 1e6, 3)))
    return Outcome.ok("Every timed interval holds only the timed work: no prints, sleeps or "
                      "other host work between the clock reads.")


def _activity(event: Write | Sleep | Eager) -> tuple[str, str]:
    """The message and hint for one piece of the learner's host work inside."""
    line = line_of(event)
    who = f"Line {line}" if line else "Your code"
    if isinstance(event, Write):
        return (f"{who} prints inside the timed interval: writing output takes host time, "
                "and the sample includes it.",
                "Move the `print` after the timer stops (or print the samples once, after "
                "the loop).")
    if isinstance(event, Sleep):
        return (f"{who} calls `time.sleep` inside the timed interval: the sample includes "
                "the pause, and a pause is no wait for the output.",
                "Take the sleep out from between the two clock reads; to wait for the work, "
                "call `block_until_ready()` on the timed output.")
    return (f"{who} runs `{event.fun}` eagerly (outside jit) inside the timed interval, on "
            "arrays other than the timed output: the sample includes that extra work.",
            f"Keep other computations (checks, references) out of the interval: {MOVE_OUT}.")


def _where(interval: Interval) -> str:
    """``"Lines 12-14 spend"``: the learner's lines around the most unexplained CPU time."""
    gap = interval.unexplained_gap()
    lines = sorted({line for line in (_line(gap[0]), _line(gap[1])) if line}) if gap else []
    if not lines:
        return "Your code spends"
    if len(lines) == 1:
        return f"Line {lines[0]} spends"
    return f"Lines {lines[0]}-{lines[1]} spend"


def _line(event: Event) -> int | None:
    return line_of(event)


def _ms(ns: int) -> str:
    return f"{ns / 1e6:.1f} ms"
