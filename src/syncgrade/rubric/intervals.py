"""The public building blocks for writing a check about timed intervals.

Every check in :mod:`syncgrade.rubric.checks`, :mod:`~syncgrade.rubric.report_checks`,
:mod:`~syncgrade.rubric.workload_checks` and :mod:`~syncgrade.rubric.end_to_end` is made
of these; a new check should be too (docs/authoring.md, "Writing a new check"):

- :func:`judged_intervals`: the intervals a check judges (the ones the returned samples
  are the differences of; every recorded interval when the samples match none);
- :func:`timed_intervals`: those that contain a call, or an early :class:`Verdict`;
- :func:`sample_match` / :func:`samples_at`: which read pairs the samples are, and the
  samples themselves;
- :func:`line_of`, :func:`on_line`, :func:`function_of`, :func:`with_timeline`: the pieces
  of a learner-facing message (a line number, the learner function's name, a drawing of
  the interval).

All are pure functions of a :class:`~syncgrade.rubric.base.Context`; none runs learner
code. Semantics of "interval", "timed call" and sample matching: docs/checks.md.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from syncgrade.analysis import Interval, SampleMatch
from syncgrade.models import Evidence
from syncgrade.rubric.base import Context, Outcome, Skip, ValuePath
from syncgrade.rubric.timeline import WARM_PHASES, draw_both
from syncgrade.values import is_number

__all__ = [
    "Verdict", "function_of", "judged_intervals", "line_of", "no_intervals", "on_line",
    "sample_match", "samples_at", "timed_intervals", "with_timeline",
]


class Verdict(Exception):
    """Carries a finished :class:`Outcome` out of a helper: a check catches it and returns
    ``verdict.outcome`` (see :func:`timed_intervals`)."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


def samples_at(ctx: Context, call: str, samples: ValuePath) -> list[float]:
    """The list of numbers at ``samples`` in ``call``'s return value, as floats; raises
    :class:`Skip` when it is not a list of numbers (``sample-count`` reports that)."""
    value = ctx.value(call, samples)
    if not isinstance(value, (list, tuple)) or not all(is_number(v) for v in value):
        raise Skip("the samples are not a list of numbers (see `sample-count`)")
    return [float(v) for v in value]


def sample_match(ctx: Context, call: str, samples: ValuePath,
                 exclusive_of: tuple[ValuePath, ...] = ()) -> SampleMatch | None:
    """Which of ``call``'s clock-read pairs each returned sample is the difference of (see
    :meth:`syncgrade.analysis.Analysis.match`); ``None`` when the samples are not a list of
    numbers. Read pairs matched by the sample lists at ``exclusive_of`` (each matched in
    turn, excluding those before it) are taken: two lists never share an interval."""
    analysis = ctx.analysis(call)
    taken: frozenset[tuple[int, int]] = frozenset()
    for other in exclusive_of:
        try:
            taken |= analysis.match(samples_at(ctx, call, other), taken).keys
        except Skip:
            continue
    try:
        values = samples_at(ctx, call, samples)
    except Skip:
        return None
    return analysis.match(values, taken)


def judged_intervals(ctx: Context, call: str, samples: ValuePath | None) -> list[Interval]:
    """The intervals a check judges: those the returned samples are the differences of,
    one per sample, in sample order; every recorded interval when ``samples`` is ``None``
    or the samples name none (made-up or altered samples are ``samples-measured``'s
    failure, and every interval is still judged)."""
    analysis = ctx.analysis(call)
    if samples is None:
        return list(analysis.intervals)
    match = sample_match(ctx, call, samples)
    if match is None or not match.complete:
        return list(analysis.intervals)
    return match.matched


def timed_intervals(ctx: Context, call: str, samples: ValuePath | None) -> list[Interval]:
    """The judged intervals that contain at least one call of a jitted function. Raises
    :class:`Verdict` (a failure, :func:`no_intervals`) when there is no interval at all,
    and :class:`Skip` when no interval contains a call (``times-the-call`` reports that)."""
    intervals = judged_intervals(ctx, call, samples)
    if not intervals:
        raise Verdict(no_intervals(function_of(ctx, call)))
    timed = [i for i in intervals if i.calls]
    if not timed:
        raise Skip("no timed interval contains a call of a jitted function")
    return timed


def no_intervals(function: str) -> Outcome:
    """The failure for a learner function in which no two clock reads were subtracted."""
    return Outcome.fail(
        f"No timed interval was found in `{function}`: no two clock readings were subtracted.",
        "Read a clock (for example `time.perf_counter()`) just before the call and again "
        "after waiting for its output, and keep their difference as the sample.",
    )


def line_of(event: Any) -> int | None:
    """The learner's line number of a trace event (``None`` when it has no learner site)."""
    site = getattr(event, "site", None)
    return site[1] if site else None


def on_line(line: int | None) -> str:
    """``" on line 12"`` for a message, or ``""`` when the line is unknown."""
    return f" on line {line}" if line else ""


def function_of(ctx: Context, call_id: str) -> str:
    """The learner function (or constant) name the grader call ``call_id`` uses."""
    for call in ctx.exercise.calls:
        if call.id == call_id:
            return call.function or call.attribute
    return call_id


def with_timeline(ctx: Context, call: str, interval: Interval, *,
                  flaws: Collection[str] | None = None, **facts: Any) -> Evidence:
    """Evidence holding ``facts`` and a drawing of ``interval`` on the learner's lines: the
    text timeline and the same interval as data for a picture. ``flaws`` names the flaws
    the picture marks (:data:`syncgrade.rubric.timeline.FLAW_NOTES`); by default, every
    event that contradicts what ``call``'s samples are declared to measure (see
    :func:`syncgrade.rubric.timeline.picture`)."""
    timeline, picture = draw_both(interval, ctx.analysis(call), ctx.display_name, flaws,
                                  declared_phases(ctx, call))
    return Evidence(facts=facts, timeline=timeline, interval=picture)


def declared_phases(ctx: Context, call: str) -> frozenset[str]:
    """The phases every list of samples ``call`` returns is declared to measure (their
    common ones: in a call that returns first-call and warm lists, the warm interval);
    :data:`~syncgrade.rubric.timeline.WARM_PHASES` when it declares none."""
    declared = [frozenset(s.phases) for s in ctx.exercise.samples
                if getattr(s, "call", None) == call and not getattr(s, "probe", False)]
    return frozenset.intersection(*declared) if declared else WARM_PHASES
