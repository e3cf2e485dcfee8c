"""From a call's event log to the learner's timed intervals and what each contained.

Pure functions of the validated trace. An interval is the span between two clock reads the
learner subtracted; everything with a sequence number strictly between them happened
inside it. When the learner's arithmetic hid the pairing (``float(b) - float(a)``,
``np.diff``), consecutive reads are paired in order and the interval is marked inferred;
the returned samples then name their real read pairs by value (:meth:`Analysis.match`).

Cost: the events are sorted once and indexed by kind, so an interval's calls, waits,
placements and compilations are two bisections and a slice (``O(log E)`` plus what is
read), and matching samples to read pairs is a sorted search (``O(R log R)`` per sample and
unit over ``R`` clock reads). Nothing scans all events per interval: a learner who reads the
clock 250 times and subtracts every pair (31k intervals) is analysed in well under a second.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from typing import Any, overload

import numpy as np

from syncgrade.trace import (
    READBACK_WAYS,
    Call,
    Compile,
    Eager,
    Event,
    HostCallback,
    Pair,
    Placement,
    Return,
    Sleep,
    TimerRead,
    Wait,
    Write,
)

_CLOCK_IDS = ("CLOCK_MONOTONIC", "CLOCK_REALTIME", "CLOCK_MONOTONIC_RAW", "CLOCK_BOOTTIME")
_CPU_CLOCK_IDS = ("CLOCK_PROCESS_CPUTIME_ID", "CLOCK_THREAD_CPUTIME_ID")
CPU_CLOCKS = frozenset({
    "process_time", "process_time_ns", "thread_time", "thread_time_ns",
    *(f"{function}({name})" for function in ("clock_gettime", "clock_gettime_ns")
      for name in _CPU_CLOCK_IDS)})
"""Clocks that count CPU time, not time passing: they stand still while a thread waits."""
# Integer nanoseconds (``datetime.now()`` and its siblings: the system clock's nanoseconds,
# whole microseconds, as the datetime the learner got holds them).
NS_CLOCKS = frozenset({
    "perf_counter_ns", "monotonic_ns", "time_ns", "process_time_ns", "thread_time_ns",
    "datetime.now", "datetime.utcnow", "datetime.today",
    *(f"clock_gettime_ns({name})" for name in (*_CLOCK_IDS, *_CPU_CLOCK_IDS))})
PHASES = (
    "input placement",
    "compilation",
    "dispatch",
    "device execution",
    "output wait",
    "host transfer",
)
UNEXPLAINED_CPU_BOUND_NS = 1_000_000
"""The most host CPU time (ns) an interval may spend outside its recorded operations
(:attr:`Interval.unexplained_cpu_ns`) before ``interval-clean`` counts it: a list fails
when more than half of its intervals, and at least two, are over it, or when their time
over it, summed, is more than ``checks_intervals.CPU_EXCESS_ALLOWANCE_NS`` (work in some
samples only). The instrumented glue of a correct sample (clock hooks, the call's
recording, the wait's) measured 20-90 µs, also beside four CPU hogs, and 90-180 µs with
``float(out.sum())`` as the wait; a NumPy recompute of an exercise's reference on its
hidden inputs took 480-670 µs in its warm samples (exercise-5, the smallest, before the
exercises' inputs were sized for a 2x margin: 3 ms and more since, docs/checks.md,
"interval-clean's margin") and more in the others (docs/performance.md, "Unexplained
host time"). It was 0.35 ms until correct
intervals measured 0.5 ms under load in full CI runs (exercise-4's lesson-shaped helper,
exercise-3's files), while every flawed file of the corpus that fails on CPU time alone
measured 2.2 ms or more in its first over-bound interval on 2026-12-06 (exercise-8's NumPy
check 2.2 ms, exercise-3's list conversion 2.5 ms, exercise-5's NumPy check 4.5 ms): 1 ms
keeps a factor of two on both sides."""
SWITCH_ALLOWANCE_NS = 25_000
"""Host CPU time (ns) allowed on top of :data:`UNEXPLAINED_CPU_BOUND_NS` for each voluntary
context switch of the reading thread inside the interval (:attr:`Interval.cpu_bound_ns`).
Each switch (a wait for the GIL, a lock, the kernel) costs the thread ~10-15 µs of CPU
time that is not its own work: with a busy thread of the learner's beside it and
``sys.setswitchinterval(2e-5)``, on a loaded machine, a correct interval of five GIL
releases spent up to 4.2 ms of CPU time on 295 switches (docs/performance.md,
"Unexplained host time"). NumPy work hardly switches: a recompute's CPU time stays over
the bound."""
CALL_ALLOWANCE_NS = 100_000
"""Host CPU time (ns) allowed on top of :data:`UNEXPLAINED_CPU_BOUND_NS` for each timed call
of the reading thread inside the interval after its first (:attr:`Interval.cpu_bound_ns`).
Each call and its wait leave their hooks' glue unexplained (the core's bookkeeping after
the call's end stamp, the wait hook's entry, the learner's loop): an interval around a loop
of five calls and waits (exercise-3's ``whole_loop_one_interval``) measured 270-460 µs,
one call 60-150 µs, also beside eight CPU hogs: 50-80 µs a further call. Without it, an
interval timing a batch or a loop of calls outgrows the bound on glue alone (twenty calls:
about 1.5 ms) and fails ``interval-clean`` for host work it does not hold. Calls only, not
waits: a learner can wait as often as they like, and each wait would buy room for work."""
UNRECORDED_BLOCK_BOUND_NS = 1_000_000
"""The most time (ns) the reading thread may spend blocked (off a CPU and not runnable:
sleeping, waiting on an event, a lock, ``select``, a pipe) inside an interval outside
every recorded operation (:attr:`Interval.unrecorded_blocked_ns`) before
``interval-clean`` counts it, with the same list rule as unexplained CPU time (more than
half of the judged intervals and at least two over it, or more than
``checks_intervals.CPU_EXCESS_ALLOWANCE_NS`` over it summed). Correct intervals measured
-0.04 to +0.04 ms, also beside eight CPU hogs on 2 cores (a thread waiting for a CPU is
runnable, not blocked; docs/checks.md, "interval-clean"); a learner's 5 ms
``Event.wait`` a sample measured 5.05-5.12 ms."""
UNITS = (1.0, 1e3, 1e6, 1e9)  # seconds, milliseconds, microseconds, nanoseconds
MAX_MATCHED_SAMPLES = 100  # an exercise asks for < 10; a longer list fails `sample-count`
_CANDIDATE_SCAN_LIMIT = 20_000  # read pairs looked at per sample and unit, at most
_NUMPY_CALL = "numpy-call"  # index key: calls that received NumPy arrays
HostWork = Write | Sleep | Eager | HostCallback
"""The learner's own host work an interval can hold, each an event (``host_activity``)."""


# --------------------------------------------------------------------------- the index


class EventIndex:
    """One call's events in ``seq`` order, with a ``seq`` list per kind, so that "the
    events of kind K strictly between two sequence numbers" is two bisections and a slice.

    Kinds are the event ``kind`` strings (``"call"``, ``"wait"``, ...), plus ``"content"``
    (everything but ``pair`` records, which say how values were combined, not what ran)
    and ``"numpy-call"`` (calls that received NumPy arrays: implicit transfers).
    """

    def __init__(self, ordered: Sequence[Event]) -> None:
        self.events: tuple[Event, ...] = tuple(ordered)
        self.seqs = [e.seq for e in self.events]
        kinds: dict[str, tuple[list[int], list[Any]]] = {}

        def add(kind: str, event: Event) -> None:
            seqs, events = kinds.setdefault(kind, ([], []))
            seqs.append(event.seq)
            events.append(event)

        for event in self.events:
            add(event.kind, event)
            if not isinstance(event, Pair):
                add("content", event)
            if isinstance(event, Call) and event.numpy_args > 0:
                add(_NUMPY_CALL, event)
        self._kinds = kinds
        self.returns: dict[int, Return] = {e.call: e for e in self.of_kind("return")}
        self.readiness: dict[int, bool] = {e.read: e.ready for e in self.of_kind("ready")}
        self.reads: dict[int, TimerRead] = {e.seq: e for e in self.of_kind("timer")}

    def of_kind(self, kind: str) -> list[Any]:
        return self._kinds.get(kind, ([], []))[1]

    def between(self, kind: str, after: int, before: int) -> list[Any]:
        """Events of ``kind`` with ``after < seq < before``, in order."""
        seqs, events = self._kinds.get(kind, ([], []))
        return events[bisect_right(seqs, after):bisect_left(seqs, before)]

    def span(self, kind: str, after: int, before: int) -> tuple[list[Any], int, int]:
        """(events of ``kind``, lo, hi): ``events[lo:hi]`` are those strictly between."""
        seqs, events = self._kinds.get(kind, ([], []))
        return events, bisect_right(seqs, after), bisect_left(seqs, before)

    def last_between(self, kind: str, after: int, before: int) -> Any | None:
        events, lo, hi = self.span(kind, after, before)
        return events[hi - 1] if hi > lo else None

    def before(self, seq: int) -> list[Event]:
        return list(self.events[:bisect_left(self.seqs, seq)])


# --------------------------------------------------------------------------- intervals


@dataclass(frozen=True)
class TimedCall:
    call: Call
    ret: Return | None

    @property
    def outputs(self) -> frozenset[int]:
        return frozenset(self.ret.outputs) if self.ret else frozenset()


class TimedCalls(Sequence[TimedCall]):
    """The calls inside an interval, built on demand: ``len()``, truth and ``[-1]`` cost
    nothing beyond the interval's two bisections, so a check that only asks "how many
    calls" stays cheap over tens of thousands of overlapping intervals."""

    def __init__(self, calls: list[Call], lo: int, hi: int,
                 returns: dict[int, Return]) -> None:
        self._calls, self._lo, self._hi, self._returns = calls, lo, max(lo, hi), returns

    def __len__(self) -> int:
        return self._hi - self._lo

    @overload
    def __getitem__(self, i: int) -> TimedCall: ...

    @overload
    def __getitem__(self, i: slice) -> list[TimedCall]: ...

    def __getitem__(self, i: int | slice) -> TimedCall | list[TimedCall]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        call = self._calls[self._lo + i]
        return TimedCall(call, self._returns.get(call.seq))


@dataclass(frozen=True)
class Interval:
    """One learner interval, ``start`` to ``stop``; its contents are read lazily from the
    call's :class:`EventIndex` (strictly between the two reads' sequence numbers).

    ``inferred``: the learner's code never subtracted these two reads as such (the pairing
    came from read order, or from a returned sample's value)."""

    start: TimerRead
    stop: TimerRead
    index: EventIndex = field(compare=False, repr=False)
    ready_at_stop: bool | None = None
    inferred: bool = False

    @property
    def seconds(self) -> float:
        return _seconds(self.start, self.stop)

    def _between(self, kind: str) -> list[Any]:
        return self.index.between(kind, self.start.seq, self.stop.seq)

    @cached_property
    def inside(self) -> tuple[Event, ...]:
        """Every event inside, except ``pair`` records."""
        return tuple(self._between("content"))

    @cached_property
    def calls(self) -> TimedCalls:
        calls, lo, hi = self.index.span("call", self.start.seq, self.stop.seq)
        return TimedCalls(calls, lo, hi, self.index.returns)

    @cached_property
    def waits(self) -> list[Wait]:
        return self._between("wait")

    @cached_property
    def placements(self) -> list[Placement]:
        """Every explicit placement inside (``jax.device_put``, ``jnp.asarray`` of NumPy
        data), whether or not it moved host data."""
        return self._between("placement")

    @cached_property
    def host_placements(self) -> list[Placement]:
        """Placements inside that moved host data (re-placing device arrays moves none)."""
        return [p for p in self.placements if p.host > 0]

    @cached_property
    def compiles(self) -> list[Compile]:
        return self._between("compile")

    @cached_property
    def work_compiles(self) -> list[Compile]:
        """Compilations inside up to the last timed call's return: the timed work's own.
        Later ones compile what the learner waits through (``float(out.sum())`` compiles
        a reduction on its first use): part of the wait, not of the timed call."""
        last: Call | None = self.index.last_between("call", self.start.seq, self.stop.seq)
        if last is None:
            return self.compiles
        ret = self.index.returns.get(last.seq)
        end = ret.seq if ret else last.seq
        return [c for c in self.compiles if c.seq < end]

    @property
    def implicit_transfers(self) -> list[Call]:
        return self._between(_NUMPY_CALL)

    def waits_on_timed_output(self) -> list[Wait]:
        """Waits after the last timed call's return on its outputs, or on a value
        computed from them (see :func:`waits_on_output`)."""
        last: Call | None = self.index.last_between("call", self.start.seq, self.stop.seq)
        if last is None:
            return []
        return waits_on_output(self.index, last, self.stop.seq,
                               proven_ready=self.ready_at_stop is True)

    def waits_on_own_output(self) -> list[Wait]:
        """Waits after the last timed call's return on exactly its output arrays."""
        last: Call | None = self.index.last_between("call", self.start.seq, self.stop.seq)
        if last is None:
            return []
        return waits_on_output(self.index, last, self.stop.seq, proven_ready=False)

    def readbacks_of_timed_output(self) -> list[Wait]:
        """Host reads of the timed output arrays themselves (a whole-output transfer; a
        read of a value computed from the output is a wait, not this)."""
        return [w for w in self.waits_on_own_output() if w.how in READBACK_WAYS]

    @cached_property
    def _eager_split(self) -> tuple[list[Eager], list[HostWork]]:
        """(eager work on the calls' outputs, the learner's other host work), in order."""
        derived: set[int] = set()
        on_outputs: list[Eager] = []
        found: list[HostWork] = []
        parts = self.inside_host_callbacks
        for event in self.inside:
            if event.seq in parts:
                continue  # part of a host callback's run, which is found instead
            if isinstance(event, HostCallback):  # on any thread: XLA's, or inline
                found.append(event)
            elif isinstance(event, Return):
                derived.update(event.outputs)
            elif isinstance(event, Eager):
                if derived.intersection(event.arrays[:event.inputs]):
                    derived.update(event.arrays[event.inputs:])
                    on_outputs.append(event)
                elif event.site is not None:
                    found.append(event)
            elif isinstance(event, (Write, Sleep)) and event.site is not None \
                    and event.seq not in self.poll_sleeps:  # (a poll's sleep is its wait)
                found.append(event)
        return on_outputs, found

    def host_activity(self) -> list[HostWork]:
        """The learner's own host work inside, in order: writes to stdout/stderr, sleeps,
        runs of a compiled call's host callbacks (host Python inside the call: no device
        work), and eager (not jitted) array work on anything but the interval's call outputs and
        what was computed from them (``float(out.sum())`` reduces the timed output to
        wait for it: part of the wait; ``jnp.tanh(x @ w)`` recomputes on other arrays:
        not). Events without a learner site (the grader's or a library's) are left out."""
        return self._eager_split[1]

    def explained_cpu(self) -> list[tuple[int, int]]:
        """The CPU-time spans (ns, on the start read's thread) of the recorded operations
        inside, each credited only its own span (:attr:`~syncgrade.trace._Event.cpu_span`,
        stamped by its hook and the core): each call from dispatch to return, each wait
        and host read, each placement, eager work on the calls' outputs (part of a wait),
        and every GC pause; merged, clipped to the interval's CPU span, and less the runs
        of host callbacks inside (a compiled call that calls back to the host runs host
        Python there, which is not device work: :func:`_without`).

        One allowance beyond an operation's own span: a NumPy conversion of plain Python
        values (``np.array(out.tolist())``: a wait with no arrays) frees the list it
        converted after its hook returned, when the learner's statement drops it. That
        freeing is credited for at most the conversion's own CPU time right after it
        (freeing a list of floats took 0.2-0.35x of converting it, 10 to 10^6 items),
        never up to the thread's next event: work after a conversion is the learner's."""
        start, stop = self.start, self.stop
        if start.cpu is None or stop.cpu is None:
            return []
        spans, callbacks = self._recorded_cpu(start.th)
        spans.extend(span for g in self.index.of_kind("gc")
                     if g.th == start.th and (span := g.cpu_span) is not None)
        return _without(_merged(spans, start.cpu, stop.cpu), callbacks)

    def _recorded_cpu(self, th: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """(the CPU-time spans of thread ``th``'s recorded operations inside, unmerged and
        unclipped; the spans of its host callbacks' runs inside): the credit
        :meth:`explained_cpu` gives the reading thread and :attr:`thread_cpu_ns` the
        learner's other threads, one rule for every thread. A call counts only with its
        return inside (by position: another thread's CPU clock was not read at the
        interval's reads)."""
        spans: list[tuple[int, int]] = []
        callbacks: list[tuple[int, int]] = []
        for event in self.inside:
            if event.th != th or event.cpu is None:
                continue
            if isinstance(event, Call):
                ret = self.index.returns.get(event.seq)
                if ret is not None and ret.cpu is not None and ret.seq < self.stop.seq:
                    spans.append((event.cpu, ret.cpu))
                continue
            span = event.cpu_span
            if span is None:
                continue
            if isinstance(event, HostCallback):
                callbacks.append(span)
            elif isinstance(event, Wait) and event.holes:  # a poll loop's body is not
                spans.extend(_without([span], event.holes))
            elif isinstance(event, (Wait, Placement)):
                spans.append(span)
                if isinstance(event, Wait) and not event.arrays and event.cpu0 is not None:
                    spans.append((span[1], 2 * span[1] - span[0]))  # freeing its list
        spans.extend(span for e in self._eager_split[0]
                     if e.th == th and (span := e.cpu_span) is not None)
        return spans, callbacks

    def _explained_other_cpu_ns(self) -> int:
        """The CPU time the learner's other threads spent inside recorded operations
        between the reads (a wait handed to a helper thread: ``asyncio.to_thread``, an
        executor): credited as the reading thread's are (:meth:`_recorded_cpu`), each
        thread's spans merged, less its host callbacks' runs. A GC pause on another thread
        is not credited (its place against the reads is unknown). A wait recorded before
        it waited carries its end stamp without a position, so one still under way at the
        stop read is credited whole: a blocking wait's few microseconds of CPU time past
        the read (a poll loop is recorded at its end, and placed)."""
        reader = self.start.th
        total = 0
        for th in {e.th for e in self.inside if e.th != reader}:
            spans, callbacks = self._recorded_cpu(th)
            if spans:
                lo = min(a for a, _ in spans)
                hi = max(b for _, b in spans)
                total += sum(b - a for a, b in _without(_merged(spans, lo, hi), callbacks))
        return total

    def explained_blocked(self) -> list[tuple[int, int]]:
        """The spans (ns, on the start read's thread's blocked clock,
        :data:`~syncgrade.trace.Blocked`) in which that thread was blocked inside a
        recorded operation, or while the timed work still ran: each call from dispatch to
        return, each wait and placement (:attr:`~syncgrade.trace._Event.blk_span`), and,
        for a wait recorded while the latest call's outputs still ran
        (:attr:`~syncgrade.trace.Wait.pending`), everything from the thread's latest
        return before it to the wait (blocking there overlapped the device's work and
        cannot lengthen the sample). Merged and clipped to the interval's span. Nothing
        else blocks in a correct interval: a sleep, ``Event.wait``, ``select``, a
        ``queue.get`` or a lock the learner's code waits on outside these is the
        learner's."""
        start, stop = self.start, self.stop
        if start.blk is None or stop.blk is None:
            return []
        th = start.th
        spans: list[tuple[int, int]] = []
        returned: int | None = None  # the blocked stamp of the thread's latest return
        for event in self.inside:
            if event.th != th:
                continue
            if isinstance(event, Call):
                ret = self.index.returns.get(event.seq)
                if ret is not None and event.blk is not None and ret.blk is not None:
                    spans.append((event.blk, ret.blk))
            elif isinstance(event, Return):
                returned = event.blk
            elif isinstance(event, (Wait, Placement)):
                span = event.blk_span
                if span is not None:
                    spans.append(span)
                if isinstance(event, Wait) and event.pending and returned is not None \
                        and event.blk is not None:
                    spans.append((returned, event.blk))
        return _merged(spans, start.blk, stop.blk)

    @cached_property
    def unrecorded_blocked_ns(self) -> int | None:
        """The time (ns) the start read's thread spent blocked between the two reads
        outside every recorded operation (:meth:`explained_blocked`): off a CPU and not
        waiting for one, so neither work nor load, but a wait the grader did not record
        (``threading.Event().wait``, ``select``, ``queue.get(timeout=...)``,
        ``Lock.acquire(timeout=...)``, a read of a pipe, a socket, any mechanism).
        ``None`` when a read carries no blocked stamp (schedstat unreadable: gVisor, not
        Linux), the reads were made on different threads, or another thread did the
        timed work (:meth:`_handed_off`): then nothing is judged."""
        start, stop = self.start, self.stop
        if start.blk is None or stop.blk is None or start.th != stop.th:
            return None
        if self._handed_off():
            return None
        covered = sum(b - a for a, b in self.explained_blocked())
        return stop.blk - start.blk - covered

    def _handed_off(self) -> bool:
        """Whether another thread did the timed work inside the interval on the reading
        thread's behalf: a call, a wait on the interval's outputs, or a wait begun while
        the latest call's outputs still ran (:attr:`~syncgrade.trace.Wait.pending`). The
        reading thread, blocked meanwhile (``asyncio.to_thread``, an executor's
        ``result()``, a ``join``), waits for that thread, and how long includes the other
        thread's wait for a CPU, which its stamps do not carry: under load a correct
        hand-off read 1.8 ms over the other thread's own spans. So such an interval's
        blocking is not judged (its other threads' CPU still is, and ``sample-duration``
        judges its length)."""
        th = self.start.th
        outputs = {a for c in self.calls for a in c.outputs}
        return any(event.th != th and (
            isinstance(event, Call) or (isinstance(event, Wait) and (
                event.pending or not outputs.isdisjoint(event.arrays))))
            for event in self.inside)

    @cached_property
    def host_callbacks(self) -> list[HostCallback]:
        """Runs of a compiled program's host callbacks inside (any thread)."""
        return self._between("callback")

    @cached_property
    def poll_run_sleeps(self) -> frozenset[int]:
        """Sequence numbers of the sleeps inside a poll loop that ended ready (``while not
        out.is_ready(): time.sleep(t)``), of any length: a sleep lies inside a poll run
        when its CPU stamp lies in the run's span on the same thread. Each was asked for
        while the polled array was still running (the loop goes on only then), so it
        overlaps the work, and the sample can outlast the work by one sleep at most."""
        runs = [(w.th, span) for w in self.waits
                if w.how == "is_ready" and w.cpu0 is not None and (span := w.cpu_span)]
        if not runs:
            return frozenset()
        return frozenset(e.seq for e in self.inside
                         if isinstance(e, Sleep) and _stamped_within(e, runs))

    @cached_property
    def poll_sleeps(self) -> frozenset[int]:
        """The sleeps of :attr:`poll_run_sleeps` that are part of their loop's wait, as a
        bare poll is: each asked for at most :data:`UNRECORDED_BLOCK_BOUND_NS` (the
        blocking a sample may hold). A longer one (a loop that polls every 20 ms pads a
        5 ms call fourfold) is still the learner's pause, and so is every sleep outside
        a poll run (before the call, after the output was ready)."""
        return frozenset(
            e.seq for e in self.inside
            if isinstance(e, Sleep) and e.seq in self.poll_run_sleeps
            and e.seconds is not None and 0 <= e.seconds * 1e9 <= UNRECORDED_BLOCK_BOUND_NS)

    @cached_property
    def inside_host_callbacks(self) -> frozenset[int]:
        """Sequence numbers of the events recorded while a host callback inside ran (on
        its thread, inside its CPU span): the callback's own conversions and prints, part
        of that callback's run, not operations of their own."""
        spans = [(c.th, span) for c in self.host_callbacks if (span := c.cpu_span)]
        if not spans:
            return frozenset()
        return frozenset(e.seq for e in self.inside
                         if not isinstance(e, HostCallback) and _stamped_within(e, spans))

    @cached_property
    def unexplained_cpu_ns(self) -> int | None:
        """The start read's thread's CPU time between the two reads that no recorded
        operation explains (:meth:`explained_cpu`), plus all the CPU time of the
        learner's other threads in that time (:attr:`thread_cpu_ns`): the learner's own
        host work. ``None`` when the reads carry no CPU stamps or were made on different
        threads."""
        start, stop = self.start, self.stop
        if start.cpu is None or stop.cpu is None or start.th != stop.th \
                or stop.cpu < start.cpu:
            return None
        covered = sum(b - a for a, b in self.explained_cpu())
        return stop.cpu - start.cpu - covered + self.thread_cpu_ns

    @property
    def thread_cpu_ns(self) -> int:
        """The CPU time the threads the learner's code started (all but the reading
        thread) spent between the two reads outside their recorded operations (a wait
        handed to a helper thread is a wait there too: :meth:`_explained_other_cpu_ns`):
        host work, whatever it was (NumPy handed to a ``threading.Thread`` or an executor
        and waited for inside), part of :attr:`unexplained_cpu_ns`. 0 when the reads
        were made on different threads or no such thread ran (a read before the first
        such thread began carries no figure: none had spent any)."""
        start, stop = self.start, self.stop
        if start.th != stop.th or (start.others is None and stop.others is None):
            return 0
        spent = (stop.others or 0) - (start.others or 0)
        return max(0, spent - self._explained_other_cpu_ns())

    @property
    def cpu_clocks(self) -> int:
        """How many threads' CPU clocks :attr:`unexplained_cpu_ns` is read from: the
        reading thread's, and one for each thread the learner's code started that was
        alive at the start read or began before the stop read (``TimerRead.others_born``
        at the stop read less ``others_ended`` at the start read). Each clock's reading
        of a stretch is up to one step of that clock long (a tick that lands in it counts
        whole): a clock step is allowed per clock, not per interval. 1 when the reads
        were made on different threads or no such thread had begun; a reading thread
        that is itself one of the learner's threads is counted twice (one step more than
        its figure needs)."""
        start, stop = self.start, self.stop
        if start.th != stop.th or stop.others_born is None:
            return 1
        return 1 + max(0, stop.others_born - (start.others_ended or 0))

    @property
    def threads_did_most(self) -> bool:
        """Most of the unexplained host CPU time was spent by the learner's other threads
        (:attr:`thread_cpu_ns`), not by the reading thread."""
        return 2 * self.thread_cpu_ns > (self.unexplained_cpu_ns or 0)

    @property
    def voluntary_switches(self) -> int:
        """The reading thread's voluntary context switches from the start read to the stop
        read (0 when the reads carry no count or were made on different threads)."""
        start, stop = self.start.vcs, self.stop.vcs
        if start is None or stop is None or self.start.th != self.stop.th or stop < start:
            return 0
        return stop - start

    @property
    def reader_calls(self) -> int:
        """The timed calls inside made on the start read's thread (their glue is that
        thread's CPU time; a call on another thread leaves none there)."""
        th = self.start.th
        return sum(1 for call in self.calls if call.call.th == th)

    @property
    def cpu_bound_ns(self) -> int:
        """The most unexplained host CPU time this interval may hold:
        :data:`UNEXPLAINED_CPU_BOUND_NS`, plus :data:`SWITCH_ALLOWANCE_NS` per voluntary
        context switch inside it (switching is not the learner's work), plus
        :data:`CALL_ALLOWANCE_NS` per call of the reading thread after its first (each
        call's hooks leave glue of their own)."""
        return (UNEXPLAINED_CPU_BOUND_NS + SWITCH_ALLOWANCE_NS * self.voluntary_switches
                + CALL_ALLOWANCE_NS * max(0, self.reader_calls - 1))

    @property
    def over_cpu_bound(self) -> bool:
        """Its unexplained host CPU time (:attr:`unexplained_cpu_ns`) is over
        :attr:`cpu_bound_ns`: the learner's own host work is inside."""
        unexplained = self.unexplained_cpu_ns
        return unexplained is not None and unexplained > self.cpu_bound_ns

    def unexplained_gap(self) -> tuple[Event, Event, int] | None:
        """The two consecutive events of the start read's thread (by CPU stamp) between
        which the most unexplained CPU time went, and that time (ns)."""
        if self.unexplained_cpu_ns is None:
            return None
        return self._largest_gap(self.explained_cpu(), lambda e: e.cpu,
                                 lambda e: e.cpu_span)

    def unrecorded_block_gap(self) -> tuple[Event, Event, int] | None:
        """The two consecutive events of the start read's thread (by blocked-clock stamp)
        between which the most unrecorded blocking went, and that time (ns)."""
        if self.unrecorded_blocked_ns is None:
            return None
        return self._largest_gap(self.explained_blocked(), lambda e: e.blk,
                                 lambda e: e.blk_span, in_order=True)

    def _largest_gap(self, spans: list[tuple[int, int]], stamp: Any, span_of: Any,
                     in_order: bool = False) -> tuple[Event, Event, int] | None:
        """The largest stretch between consecutive stamps (``stamp(event)`` and the edges
        of ``span_of(event)``, one clock of the start read's thread) not covered by
        ``spans``: (the event before, the event after, its length). ``in_order``: the
        points in the events' order, each no earlier than the one before (the blocked
        clock jitters by a few µs, which sorting by stamp would turn into a reordering
        of events whose stamps lie that close: the stretch would then be named by the
        wrong lines); otherwise sorted by stamp (the CPU clock does not jitter)."""
        th = self.start.th
        points: list[tuple[int, Event]] = [(stamp(self.start) or 0, self.start)]
        for event in self.inside:
            at = stamp(event)
            if event.th == th and at is not None and not isinstance(event, Pair):
                edges = sorted({at, *(span_of(event) or ())})
                points.extend((edge, event) for edge in edges)
        points.append((stamp(self.stop) or 0, self.stop))
        if in_order:
            for i in range(1, len(points)):
                points[i] = (max(points[i][0], points[i - 1][0]), points[i][1])
        else:
            points.sort(key=lambda p: p[0])
        best: tuple[Event, Event, int] | None = None
        covered = SpanCoverage(spans)
        for (a, before), (b, after) in pairwise(points):
            free = b - a - covered.within(a, b)
            if best is None or free > best[2]:
                best = (before, after, free)
        return best

    def phases(self) -> set[str]:
        """The lesson's phase names for what this interval really waited for."""
        phases: set[str] = set()
        if self.placements or self.implicit_transfers:
            phases.add("input placement")
        if self.work_compiles:
            phases.add("compilation")
        if self.calls:
            phases.add("dispatch")
            if self.waits_on_timed_output() and self.ready_at_stop is not False:
                phases.update({"device execution", "output wait"})
        if self.readbacks_of_timed_output():
            phases.add("host transfer")
        return phases


def waits_on_output(index: EventIndex, call: Call, before: int,
                    proven_ready: bool) -> list[Wait]:
    """The waits after ``call`` returned and before ``before`` on its outputs, or, when
    ``proven_ready`` (the outputs were found ready right after ``before``), on an array
    first seen after the call returned (``float(out.sum())``, ``out.ravel()[0].item()``).

    Such an array was computed after the call was dispatched, and the device runs work in
    dispatch order, so waiting for it waits for the call too. Array tokens are numbered
    in the order the recorder first sees them, and a call's outputs are numbered when it
    returns: a token above all of them is newer. The readiness proof guards the one
    case this cannot tell apart, an array made earlier but first seen later: a wait on
    it leaves the timed output still running at the stop read."""
    ret = index.returns.get(call.seq)
    after = ret.seq if ret else call.seq
    wanted = set(ret.outputs) if ret else set()
    newest = max(wanted) if wanted and proven_ready else None
    return [w for w in index.between("wait", after, before)
            if wanted.intersection(w.arrays)
            or (newest is not None and any(a > newest for a in w.arrays))]


def _stamped_within(event: Event, spans: list[tuple[int, tuple[int, int]]]) -> bool:
    """``event``'s CPU stamp lies inside one of ``spans`` (``(thread, (begin, end))``) on
    its own thread: it was recorded while that operation ran."""
    return event.cpu is not None and any(
        event.th == th and lo <= event.cpu <= hi for th, (lo, hi) in spans)


def _merged(spans: Iterable[tuple[int, int]], lo: int, hi: int) -> list[tuple[int, int]]:
    """``spans`` clipped to ``[lo, hi]`` and merged where they overlap, in order."""
    merged: list[tuple[int, int]] = []
    for a, b in sorted((max(a, lo), min(b, hi)) for a, b in spans):
        if b <= a:
            continue
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


class SpanCoverage:
    """How much of a stretch some spans cover, answered in O(log n) a stretch: the
    spans merged once, with a running sum of their lengths (measuring each stretch by
    merging every span again took seconds for an interval of a few thousand events)."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        spans = list(spans)
        if not spans:
            self._starts: list[int] = []
            self._ends: list[int] = []
            self._before: list[int] = [0]
            return
        merged = _merged(spans, min(a for a, _ in spans), max(b for _, b in spans))
        self._starts = [a for a, _ in merged]
        self._ends = [b for _, b in merged]
        self._before = [0]  # _before[i]: the covered length of the first i spans
        for a, b in merged:
            self._before.append(self._before[-1] + b - a)

    def _up_to(self, x: int) -> int:
        """The covered length at or before ``x``."""
        i = bisect_right(self._starts, x)  # spans starting at or before x
        if i == 0:
            return 0
        return self._before[i - 1] + min(x, self._ends[i - 1]) - self._starts[i - 1]

    def within(self, lo: int, hi: int) -> int:
        """The covered length of ``[lo, hi]`` (0 when ``hi <= lo``): the same as the
        lengths of ``_merged(spans, lo, hi)`` summed."""
        return max(0, self._up_to(hi) - self._up_to(lo)) if hi > lo else 0


def _without(spans: list[tuple[int, int]], holes: Iterable[tuple[int, int]]
             ) -> list[tuple[int, int]]:
    """``spans`` (merged, in order) less every ``holes`` span, still merged and in order."""
    for lo, hi in holes:
        kept: list[tuple[int, int]] = []
        for a, b in spans:
            if b <= lo or a >= hi:
                kept.append((a, b))
                continue
            if a < lo:
                kept.append((a, lo))
            if b > hi:
                kept.append((hi, b))
        spans = kept
    return spans


def _seconds(start: TimerRead, stop: TimerRead) -> float:
    try:
        delta = stop.value - start.value  # exact for the integer nanosecond clocks
        return delta / 1e9 if stop.clock in NS_CLOCKS else float(delta)
    except OverflowError:
        return math.inf


# --------------------------------------------------------------------------- samples


PairKey = tuple[int, int]


@dataclass(frozen=True)
class SampleMatch:
    """Which read pair each returned sample is the difference of.

    The unit chosen is the one whose matching names the most intervals that time a call,
    then the most samples (see :meth:`Analysis._match`). ``factor`` is that unit (1 for
    seconds, 1e3 for milliseconds, ...) when every sample matched a distinct read pair in
    it, else ``None``. ``intervals`` gives, per sample, its interval in the chosen unit,
    ``None`` for a sample that matched no read pair.
    """

    factor: float | None
    intervals: tuple[Interval | None, ...]
    judged: int  # samples considered (a list past MAX_MATCHED_SAMPLES is cut there)

    @property
    def complete(self) -> bool:
        return self.factor is not None

    @property
    def unmatched(self) -> list[int]:
        """Indexes of samples that are no difference of two of the learner's reads."""
        return [i for i, iv in enumerate(self.intervals) if iv is None]

    @property
    def matched(self) -> list[Interval]:
        """The matched intervals in time order."""
        return sorted((iv for iv in self.intervals if iv is not None),
                      key=lambda iv: (iv.start.seq, iv.stop.seq))

    @property
    def keys(self) -> frozenset[PairKey]:
        return frozenset((iv.start.seq, iv.stop.seq) for iv in self.intervals if iv)


@dataclass(frozen=True)
class _Family:
    """The reads of one clock family (float seconds, or integer nanoseconds; CPU-time
    clocks apart), sorted by value, as arrays for :func:`numpy.searchsorted`."""

    reads: tuple[TimerRead, ...]
    values: np.ndarray  # float64; for ns clocks, nanoseconds after the smallest read
    slack: np.ndarray  # float rounding of ``value + target`` in the search, per read
    per_second: float  # 1.0, or 1e9 for the ns family


def _families(reads: Iterable[TimerRead]) -> list[_Family]:
    # CPU-time clocks are families of their own: a CPU read and a wall read are no pair.
    floats: list[TimerRead] = []
    ints: list[TimerRead] = []
    cpu_floats: list[TimerRead] = []
    cpu_ints: list[TimerRead] = []
    for read in reads:
        value = read.value
        cpu = read.clock in CPU_CLOCKS
        if read.clock in NS_CLOCKS:
            if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
                (cpu_ints if cpu else ints).append(read)
        elif isinstance(value, (int, float)) and math.isfinite(value):
            (cpu_floats if cpu else floats).append(read)
    families = []
    for group, per_second in ((floats, 1.0), (ints, 1e9), (cpu_floats, 1.0), (cpu_ints, 1e9)):
        if len(group) < 2:
            continue
        group.sort(key=lambda r: (r.value, r.seq))
        if per_second == 1.0:
            values = np.array([float(r.value) for r in group], dtype=np.float64)
        else:
            base = group[0].value
            values = np.array([float(r.value - base) for r in group], dtype=np.float64)
        slack = 4 * np.spacing(np.abs(values)) + 1e-300
        families.append(_Family(tuple(group), values, slack, per_second))
    return families


HALF_MICROSECOND = 0.5e-6 * (1 + 1e-6)
"""The most a rounding to the microsecond moves a sample, in seconds, and a millionth of
it more: a nanosecond clock's duration that lies exactly halfway (``k`` ns with ``k %
1000 == 500``, one sample in a thousand) is 0.5 µs from its rounding in exact arithmetic,
and in floats it came out a rounding error above 0.5e-6 in 65 % of such durations
(``round(k / 1e9, 6)``; 42 % for ``round(k / 1e6, 3)`` in milliseconds), so a correct
``perf_counter_ns`` list rounded to the microsecond failed ``samples-measured`` about once
in 250 grades."""


def close(sample: float, duration: float, factor: float = 1.0) -> bool:
    """``sample`` equals ``duration`` (seconds) in unit ``factor``: up to float noise, or
    up to rounding to the microsecond (a learner's ``round(s, 6)`` or ``round(ms, 3)``
    still names its interval)."""
    scaled = duration * factor
    return abs(sample - scaled) <= max(1e-6 * max(abs(sample), abs(scaled), 1e-12),
                                       HALF_MICROSECOND * factor)


def _window(target: float) -> float:
    """Half-width (seconds) of the search around ``target`` seconds; a superset of
    :func:`close`'s tolerance, which then decides."""
    return max(1.01e-6 * target, HALF_MICROSECOND) * 1.01


@dataclass(frozen=True)
class Analysis:
    """Every interval in one call's trace, plus the events outside them."""

    events: tuple[Event, ...]
    intervals: tuple[Interval, ...]
    _matches: dict[Any, SampleMatch] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def index(self) -> EventIndex:
        for interval in self.intervals[:1]:
            if interval.index.events is self.events:
                return interval.index
        return EventIndex(self.events)

    def before(self, seq: int) -> list[Event]:
        return self.index.before(seq)

    def calls(self) -> list[Call]:
        return list(self.index.of_kind("call"))

    def returns(self) -> dict[int, Return]:
        return self.index.returns

    # ----------------------------------------------------------------- matching samples

    def match(self, samples: Sequence[float],
              exclude: frozenset[PairKey] = frozenset()) -> SampleMatch:
        """Match each sample to a distinct pair of this call's clock reads (start before
        stop, same clock family, a positive difference) that it equals (see :func:`close`),
        in one unit for the whole list. Pairs the learner subtracted are preferred; any
        other pair of reads may match (``float(t1) - float(t0)`` hides the subtraction).
        ``exclude`` holds read pairs already claimed by another list of samples. At most
        :data:`MAX_MATCHED_SAMPLES` samples are matched; later ones are not judged."""
        key = (tuple(samples), exclude)
        if key not in self._matches:
            self._matches[key] = self._match(list(samples)[:MAX_MATCHED_SAMPLES], exclude)
        return self._matches[key]

    @cached_property
    def _subtracted(self) -> tuple[np.ndarray, list[Interval]]:
        """Intervals from ``pair`` records, sorted by seconds, with their seconds."""
        real = sorted((i for i in self.intervals if not i.inferred and math.isfinite(i.seconds)),
                      key=lambda i: i.seconds)
        return np.array([i.seconds for i in real], dtype=np.float64), real

    @cached_property
    def _families(self) -> list[_Family]:
        return _families(self.index.reads.values())

    def _match(self, samples: list[float], exclude: frozenset[PairKey]) -> SampleMatch:
        """The unit whose matching names the most intervals that time a call, then the most
        samples (the smaller unit on a tie). Counting timed calls first matters when the
        learner read the clock in a tight loop: such a cloud of reads has a pair for
        almost any small value, so a list that fails in seconds would otherwise "match"
        as milliseconds of empty intervals."""
        values = [float(s) if _finite_positive(s) else math.nan for s in samples]
        n = len(values)
        best: tuple[tuple[int, int], float, list[Interval | None]] | None = None
        for factor in UNITS:
            chosen = self._assign(values, factor, exclude)
            found = [iv for iv in chosen if iv is not None]
            score = (sum(1 for iv in found if iv.calls), len(found))
            if best is None or score > best[0]:
                best = (score, factor, chosen)
            if score == (n, n):
                break  # nothing can beat every sample on an interval that times a call
        if best is None or n == 0:
            return SampleMatch(None, (), 0)
        (_, found_count), factor, chosen = best
        return SampleMatch(factor if found_count == n else None, tuple(chosen), n)

    def _assign(self, values: list[float], factor: float,
                exclude: frozenset[PairKey]) -> list[Interval | None]:
        """A distinct read pair per sample (maximum bipartite matching, subtracted pairs
        first, then any pair of reads for the samples still free)."""
        chosen: list[Interval | None] = [None] * len(values)
        # Each sample keeps at most `cap` candidates: with that many, it can always be
        # given one that no other sample took, so the cap never loses a matching.
        cap = 2 * len(values) + 2
        subtracted = [self._subtracted_candidates(v, factor, cap, exclude) for v in values]
        _kuhn(subtracted, chosen)
        taken = exclude | {(iv.start.seq, iv.stop.seq) for iv in chosen if iv}
        rest = [self._read_candidates(v, factor, cap, taken) if chosen[i] is None else []
                for i, v in enumerate(values)]
        fixed = [iv is not None for iv in chosen]
        _kuhn(rest, chosen, fixed=fixed)
        _in_taken_order(values, factor, chosen)
        return chosen

    def _subtracted_candidates(self, sample: float, factor: float, cap: int,
                               exclude: frozenset[PairKey]) -> list[Interval]:
        if math.isnan(sample):
            return []
        seconds, intervals = self._subtracted
        target = sample / factor
        width = _window(target)
        lo = int(np.searchsorted(seconds, target - width, "left"))
        hi = int(np.searchsorted(seconds, target + width, "right"))
        found = [iv for iv in intervals[lo:hi]
                 if (iv.start.seq, iv.stop.seq) not in exclude
                 and _same_family(iv.start, iv.stop) and iv.seconds > 0
                 and close(sample, iv.seconds, factor)]
        # Every candidate is within tolerance: one that times a call first, then nearest,
        # then the earliest. Two intervals can be equally near (a sweep's no-wait samples
        # of two settings can last the same nanoseconds): the lists are matched in order,
        # each excluding what the ones before took, so the earliest keeps each list on its
        # own intervals, whatever the machine's timing.
        found.sort(key=lambda iv: (not iv.calls, abs(iv.seconds - target), iv.start.seq))
        return found[:cap]

    def _read_candidates(self, sample: float, factor: float, cap: int,
                         taken: frozenset[PairKey] | set[PairKey]) -> list[Interval]:
        if math.isnan(sample):
            return []
        target = sample / factor
        width = _window(target)
        found: list[tuple[bool, float, int, TimerRead, TimerRead]] = []
        for fam in self._families:
            scale = fam.per_second
            lo = np.searchsorted(fam.values, fam.values + (target - width) * scale - fam.slack,
                                 "left")
            hi = np.searchsorted(fam.values, fam.values + (target + width) * scale + fam.slack,
                                 "right")
            starts = np.nonzero(hi > lo)[0]
            scanned = 0
            for i in starts.tolist():
                if len(found) >= 4 * cap or scanned >= _CANDIDATE_SCAN_LIMIT:
                    break
                start = fam.reads[i]
                for j in range(int(lo[i]), int(hi[i])):
                    scanned += 1
                    stop = fam.reads[j]
                    if stop.seq <= start.seq or (start.seq, stop.seq) in taken:
                        continue
                    duration = _seconds(start, stop)
                    if duration > 0 and close(sample, duration, factor):
                        _, lo_call, hi_call = self.index.span("call", start.seq, stop.seq)
                        found.append((hi_call <= lo_call, abs(duration - target),
                                      stop.seq - start.seq, start, stop))
        # As for subtracted pairs: one that times a call, then nearest, then the tightest,
        # then the earliest.
        found.sort(key=lambda f: (f[0], f[1], f[2], f[3].seq))
        readiness = self.index.readiness
        return [Interval(start=s, stop=e, index=self.index, ready_at_stop=readiness.get(e.seq),
                         inferred=True) for _, _, _, s, e in found[:cap]]


def _finite_positive(value: Any) -> bool:
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return math.isfinite(number) and number > 0


def _same_family(start: TimerRead, stop: TimerRead) -> bool:
    return ((start.clock in NS_CLOCKS) == (stop.clock in NS_CLOCKS)
            and (start.clock in CPU_CLOCKS) == (stop.clock in CPU_CLOCKS))


def _in_taken_order(values: list[float], factor: float,
                    chosen: list[Interval | None]) -> None:
    """Among matchings that differ only by interchangeable intervals, the one in the
    order the samples were taken, in place. Two samples equal within :func:`close`'s
    tolerance (a learner's ``round(s, 6)`` of two samples under a microsecond apart) match
    both intervals, and the matching's "nearest first" then chose by the rounding's
    digits: sample 5 could get sample 4's interval and the order rule (``times-the-call``,
    exercise-7's ``samples-in-order``) failed a correct list in one grade of many. Each
    sample, in list order, trades with a later sample for the earliest interval that both
    still equal after the trade: only equal values move, so a list really reported in
    another order (sorted) keeps every crossing its values show."""
    for i, mine in enumerate(chosen):
        if mine is None:
            continue
        for j in range(i + 1, len(chosen)):
            theirs, current = chosen[j], chosen[i]
            if (theirs is None or current is None
                    or (theirs.start.seq, theirs.stop.seq)
                    >= (current.start.seq, current.stop.seq)):
                continue
            if close(values[i], theirs.seconds, factor) and close(
                    values[j], current.seconds, factor):
                chosen[i], chosen[j] = theirs, current


def _kuhn(candidates: list[list[Interval]], chosen: list[Interval | None],
          fixed: list[bool] | None = None) -> None:
    """Maximum bipartite matching of samples to intervals (Kuhn's augmenting paths), in
    place: ``chosen[i]`` is sample ``i``'s interval. Samples marked ``fixed`` keep theirs."""
    owner: dict[PairKey, int] = {
        (iv.start.seq, iv.stop.seq): i for i, iv in enumerate(chosen) if iv is not None}

    def augment(i: int, seen: set[PairKey]) -> bool:
        options = candidates[i]
        for iv in options:  # a free pair first: most samples need no augmenting path
            key = (iv.start.seq, iv.stop.seq)
            if key not in owner and key not in seen:
                seen.add(key)
                owner[key] = i
                chosen[i] = iv
                return True
        for iv in options:
            key = (iv.start.seq, iv.stop.seq)
            if key in seen:
                continue
            seen.add(key)
            other = owner[key]
            if (fixed is None or not fixed[other]) and augment(other, seen):
                owner[key] = i
                chosen[i] = iv
                return True
        return False

    for i in range(len(candidates)):
        if chosen[i] is None and candidates[i]:
            augment(i, set())


# --------------------------------------------------------------------------- analyse


def analyse(events: Sequence[Event]) -> Analysis:
    """The learner's intervals in one call's events (any order; sorted here once)."""
    index = EventIndex(sorted(events, key=lambda e: e.seq))
    pairs, inferred = _pairs(index)
    reads, readiness = index.reads, index.readiness
    intervals = tuple(
        Interval(start=reads[a], stop=reads[b], index=index, ready_at_stop=readiness.get(b),
                 inferred=inferred)
        for a, b in pairs
    )
    return Analysis(events=index.events, intervals=intervals)


def _pairs(index: EventIndex) -> tuple[list[PairKey], bool]:
    """The distinct (start, stop) read pairs the learner subtracted, in order; else
    consecutive reads paired in order (marked inferred)."""
    reads = index.reads
    keys = {(e.start, e.stop) for e in index.of_kind("pair")
            if e.start in reads and e.stop in reads and e.start < e.stop}
    if keys:
        return sorted(keys), False
    seqs = sorted(reads)
    return [(seqs[i], seqs[i + 1]) for i in range(0, len(seqs) - 1, 2)], True
