"""From a call's event log to the learner's timed intervals and what each contained.

Pure functions of the validated trace. An interval is the span between two clock reads the
learner subtracted; everything with a sequence number strictly between them happened
inside it. When the learner's arithmetic hid the pairing (``float(b) - float(a)``,
``np.diff``), consecutive reads are paired in order and the interval is marked inferred.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from syncgrade.trace import (
    READBACK_WAYS,
    Call,
    Compile,
    Event,
    Pair,
    Placement,
    Readiness,
    Return,
    TimerRead,
    Wait,
)

NS_CLOCKS = frozenset({"perf_counter_ns", "monotonic_ns", "time_ns"})
PHASES = (
    "input placement",
    "compilation",
    "dispatch",
    "device execution",
    "output wait",
    "host transfer",
)


@dataclass(frozen=True)
class TimedCall:
    call: Call
    ret: Return | None

    @property
    def outputs(self) -> frozenset[int]:
        return frozenset(self.ret.outputs) if self.ret else frozenset()


@dataclass(frozen=True)
class Interval:
    """One learner interval, ``start`` to ``stop``, and the events inside it."""

    start: TimerRead
    stop: TimerRead
    inside: tuple[Event, ...]
    returns: dict[int, Return] = field(default_factory=dict, compare=False)
    ready_at_stop: bool | None = None
    inferred: bool = False

    @property
    def seconds(self) -> float:
        delta = self.stop.value - self.start.value
        return delta / 1e9 if self.stop.clock in NS_CLOCKS else delta

    @cached_property
    def calls(self) -> list[TimedCall]:
        return [TimedCall(e, self.returns.get(e.seq)) for e in self.inside if isinstance(e, Call)]

    @cached_property
    def waits(self) -> list[Wait]:
        return [e for e in self.inside if isinstance(e, Wait)]

    @cached_property
    def placements(self) -> list[Placement]:
        return [e for e in self.inside if isinstance(e, Placement)]

    @cached_property
    def compiles(self) -> list[Compile]:
        return [e for e in self.inside if isinstance(e, Compile)]

    @property
    def implicit_transfers(self) -> list[Call]:
        return [c.call for c in self.calls if c.call.numpy_args > 0]

    def waits_on_timed_output(self) -> list[Wait]:
        """Waits after the last timed call's return on its outputs (or anything later)."""
        if not self.calls:
            return []
        last = self.calls[-1]
        after = last.ret.seq if last.ret else last.call.seq
        wanted = set(last.outputs)
        return [w for w in self.waits if w.seq > after and wanted.intersection(w.arrays)]

    def readbacks_of_timed_output(self) -> list[Wait]:
        return [w for w in self.waits_on_timed_output() if w.how in READBACK_WAYS]

    def phases(self) -> set[str]:
        """The lesson's phase names for what this interval really waited for."""
        phases: set[str] = set()
        if self.placements or self.implicit_transfers:
            phases.add("input placement")
        if self.compiles:
            phases.add("compilation")
        if self.calls:
            phases.add("dispatch")
            if self.waits_on_timed_output() and self.ready_at_stop is not False:
                phases.update({"device execution", "output wait"})
        if self.readbacks_of_timed_output():
            phases.add("host transfer")
        return phases


@dataclass(frozen=True)
class Analysis:
    """Every interval in one call's trace, plus the events outside them."""

    events: tuple[Event, ...]
    intervals: tuple[Interval, ...]

    def before(self, seq: int) -> list[Event]:
        return [e for e in self.events if e.seq < seq]

    def calls(self) -> list[Call]:
        return [e for e in self.events if isinstance(e, Call)]

    def returns(self) -> dict[int, Return]:
        return {e.call: e for e in self.events if isinstance(e, Return)}


def analyse(events: Sequence[Event]) -> Analysis:
    ordered = tuple(sorted(events, key=lambda e: e.seq))
    reads = {e.seq: e for e in ordered if isinstance(e, TimerRead)}
    returns = {e.call: e for e in ordered if isinstance(e, Return)}
    readiness = {e.read: e.ready for e in ordered if isinstance(e, Readiness)}
    pairs, inferred = _pairs(ordered, reads)
    intervals = []
    for start_seq, stop_seq in pairs:
        inside = tuple(
            e for e in ordered if start_seq < e.seq < stop_seq and not isinstance(e, Pair)
        )
        intervals.append(
            Interval(
                start=reads[start_seq], stop=reads[stop_seq], inside=inside, returns=returns,
                ready_at_stop=readiness.get(stop_seq), inferred=inferred,
            )
        )
    return Analysis(events=ordered, intervals=tuple(intervals))


def _pairs(
    ordered: tuple[Event, ...], reads: dict[int, TimerRead]
) -> tuple[list[tuple[int, int]], bool]:
    seen: set[tuple[int, int]] = set()
    pairs = []
    for e in ordered:
        if isinstance(e, Pair) and e.start in reads and e.stop in reads and e.start < e.stop:
            key = (e.start, e.stop)
            if key not in seen:
                seen.add(key)
                pairs.append(key)
    if pairs:
        return sorted(pairs), False
    seqs = sorted(reads)
    return [(seqs[i], seqs[i + 1]) for i in range(0, len(seqs) - 1, 2)], True


def match_samples(intervals: Sequence[Interval], samples: Sequence[float]) -> float | None:
    """The unit factor (1, 1e3, 1e6, 1e9) that maps interval seconds onto the samples, if
    every sample is some interval's duration in that unit."""
    if not intervals or not samples:
        return None
    for factor in (1.0, 1e3, 1e6, 1e9):
        durations = [i.seconds * factor for i in intervals]
        if all(any(_close(s, d, factor) for d in durations) for s in samples):
            return factor
    return None


def sample_intervals(intervals: Sequence[Interval], samples: Sequence[float]) -> list[Interval]:
    """The intervals that produced the returned samples; all intervals when they can't be
    matched one to one (then the learner's samples aren't plain interval durations)."""
    factor = match_samples(intervals, samples)
    if factor is None:
        return list(intervals)
    chosen = [i for i in intervals
              if any(_close(s, i.seconds * factor, factor) for s in samples)]
    return chosen or list(intervals)


def _close(a: float, b: float, factor: float = 1.0) -> bool:
    """Equal up to float noise, or up to rounding to the microsecond in that unit (a
    learner's ``round(ms, 3)`` still names its interval)."""
    return abs(a - b) <= max(1e-6 * max(abs(a), abs(b), 1e-12), 0.5e-6 * factor)
