"""The grader's own timing of the timed call (the ``sample-duration`` check's reference).

Right after a learner call returns, for each list of samples the job asks about
(``reference`` requests of a job call, made by ``syncgrade.rubric.contract``), the child
times the callable the learner's timed calls ran, on the arguments and static values of
its latest call, with the lesson's method for the phases the list declares: a clock read,
[placement of the inputs,] one call, a wait on every output array, [a readback,] a clock
read. The clock is ``time.perf_counter`` as it was when this module was imported (before
any hook or learner code), and nothing of the learner's runs between the two reads: the
callable must be a jax ``PjitFunction`` (or a program compiled ahead of time from one), its
arguments plain arrays, containers and built-in values, so a cache hit runs the compiled
program only. Which callable: among the learner's recorded calls (``instrument.TIMED_CALLS``),
those the list's contract says are timed (the callable the grader handed over, or the learner's
own jit, by name when the contract names one) with the list's static values; of those, one per
argument signature (shapes and dtypes), those with calls inside the learner's innermost timed
windows first, then the most called, at most :data:`MAX_CANDIDATES`, each on the arguments of
its latest call. The parent judges the list against the candidate whose calls its intervals hold
(``ReferenceTiming.calls``), so an untimed call of the same callable on other inputs (a larger
one after the samples) sets nothing.

Each request gets one entry per candidate, ``{"samples": path, "seconds": [...],
"starts": [...], "calls": [...]}`` (each run's duration and start read; :data:`MIN_RUNS`
runs, two when those took :data:`LONG_S`, more while they stay under :data:`BUDGET_S`, at
most :data:`MAX_RUNS`; the event numbers of the candidate's latest calls), or ``{"samples":
path, "missing": reason}`` when there is nothing the grader can time itself.
"""

from __future__ import annotations

import _thread
import bisect
import contextlib
import functools
import os
import time
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from syncgrade.child import instrument, workloads
from syncgrade.child.jax_private import stages

MIN_RUNS = 3
"""Runs of the call the grader times (the median of three is robust to one slow run)..."""
LONG_S = 0.015
"""... unless two runs already took this long together: then two (each run of a large
workload costs its full duration in every grade, docs/performance.md)."""
MAX_RUNS = 20
"""The most runs: cheap calls get more, so the spread sees the machine's load."""
BUDGET_S = 0.005
"""Past :data:`MIN_RUNS`, more runs while the runs so far took less than this in all."""
MAX_CANDIDATES = 3
"""Argument signatures of the timed callable timed per list (:func:`_candidates`)."""
MAX_WINDOWS = 20_000
"""The learner's latest subtractions read for its timed windows (a busy-wait makes one
per turn)."""

_CLOCK: Callable[[], float] = time.perf_counter  # before the timer hooks
_REALTIME: Callable[[], float] = time.time
_SLEEP: Callable[[float], None] = time.sleep  # before the sleep hook: never recorded
_START_THREAD: Callable[..., Any] = _thread.start_new_thread
_NATIVE_ID: Callable[[], int] = _thread.get_native_id
_WAIT: Callable[[Any], Any] = workloads.wait
_PUT: Callable[[Any], Any] = workloads.put
_ASARRAY = np.asarray  # before the conversion hooks
_ZEROS = np.zeros
_NDARRAY = np.ndarray
_ARRAY_TYPE: type = instrument.ArrayImpl
_IS_DELETED: Callable[[Any], bool] = instrument.ArrayImpl.__dict__["is_deleted"]
_PJIT_TYPE: type = type(jax.jit(lambda x: x))  # jax's own, before the jit hook
_COMPILED_CALL: Any = stages.Compiled.__call__  # before the AOT hook
_TREE_LEAVES: Callable[[Any], list[Any]] = jax.tree_util.tree_leaves
_PARTIAL: Any = functools.partial
_TIMED: dict[Any, list[Any]] = instrument.TIMED_CALLS
_PAIRS: list[Any] = instrument.PAIRS  # the learner's subtractions, read only
_PLAIN = (int, float, bool, str, type(None), complex)
_NUMPY_SCALARS = frozenset(np.dtype(code).type for code in "?bhilqBHILQefdgFD")
"""NumPy's own scalar types (a static ``np.int64(384)``), not a learner's subclass."""
_MAX_LEAVES = 1000
_LOADAVG: Callable[[], tuple[float, float, float]] = os.getloadavg
_AFFINITY: Any = getattr(os, "sched_getaffinity", None)
_CPU_COUNT: Callable[[], int | None] = os.cpu_count


def clear() -> None:
    """Forget the recorded calls (before a learner call, and after the grader's timing)."""
    _TIMED.clear()


def reference_timings(requests: list[dict[str, Any]], designated: list[Any]
                      ) -> list[dict[str, Any]]:
    """Entries for each request (see the module docstring), one per candidate call
    (:func:`_candidates`, ranked by the learner's timed windows as they are when its call
    returned: :func:`_innermost_windows`), each with the event numbers of that call's latest
    runs (``calls``): the parent times the list against the candidate its intervals hold.
    ``designated``: the callables the grader handed over in this call. Empties the recorded
    calls."""
    entries = list(_TIMED.values())
    _TIMED.clear()
    windows = _innermost_windows()  # once: every request ranks by the same windows
    found = []
    for request in requests:
        path = list(request.get("samples", []))
        candidates = _candidates(entries, request.get("fn"), request.get("static"),
                                 designated, windows)
        if not candidates:
            found.append({"samples": path, "missing": "no recorded call of the timed callable",
                          "runnable_per_cpu": runnable_per_cpu()})
        for entry in candidates:
            try:
                timed = _time_entry(entry, request)
            except Exception as exc:  # a grader fault or a learner's object: no reference
                timed = {"missing": f"{type(exc).__name__}"}
            found.append({"samples": path, **timed, "calls": _numbers(entry),
                          "runnable_per_cpu": runnable_per_cpu()})
    _TIMED.clear()
    return found


def runnable_per_cpu() -> float | None:
    """The machine's load right now: the one-minute load average (runnable and
    uninterruptible tasks) per CPU this process may run on; ``None`` where unknown."""
    try:
        load = _LOADAVG()[0]
        cpus = len(_AFFINITY(0)) if _AFFINITY is not None else (_CPU_COUNT() or 1)
    except (OSError, AttributeError, TypeError):
        return None
    return float(load) / max(1, cpus)


def _time_entry(entry: list[Any], request: dict[str, Any]) -> dict[str, Any]:
    _count, _callee, call, args, kwargs, _statics, donating = entry[:7]
    if not _runs_compiled(call):
        return {"missing": "the timed callable is not a jax.jit function"}
    if not _plain_tree((args, kwargs)):
        return {"missing": "the timed call's arguments are not plain arrays and values"}
    phases = frozenset(request.get("phases", ()))
    seconds, starts = time_runs(call, args, kwargs, donating, phases)
    return {"seconds": seconds, "starts": starts}


def _numbers(entry: list[Any]) -> list[int]:
    """The event numbers of the entry's latest calls (exact ints only)."""
    numbers = entry[7] if len(entry) > 7 else ()
    return [n for n in numbers if type(n) is int]


def _candidates(entries: list[list[Any]], fn: Any, static: Any, designated: list[Any],
                windows: list[tuple[int, int]]) -> list[list[Any]]:
    """The recorded calls the contract's ``fn``/``static`` select, one per argument
    signature, those with the most calls inside the learner's innermost timed windows
    first (:func:`_innermost_windows`; where any has such calls, only those: a call
    outside every sample, on a larger input, is never run again by the grader), then the
    most called (the latest of equals), at most :data:`MAX_CANDIDATES`:
    which of them the list's samples timed is the parent's to tell, from the calls inside
    its intervals. One candidate in nearly every grade (one signature). Of the learner's
    own jits only the first one's signatures: timing another of the learner's
    programs would run what it holds (a ``jax.debug.print`` in a check after the loop
    printed once for each of the grader's runs); the grader's handed callables are all
    candidates."""
    chosen = []
    for order, entry in enumerate(entries):
        callee, statics = entry[1], entry[5]
        grader_made = any(callee is d for d in designated)
        if fn is None:
            selected = grader_made
        else:
            name = callee.__dict__.get("__name__") if type(callee) is instrument.JitProxy \
                else None
            selected = not grader_made and (fn == "" or (type(name) is str and name == fn))
        if static is not None and statics != static:
            selected = False
        if selected:
            chosen.append((entry[0], order, entry))
    starts = [start for start, _stop in windows]
    ranked = sorted(((_inside(_numbers(entry), windows, starts), count, order, entry)
                     for count, order, entry in chosen), key=lambda item: item[:3],
                    reverse=True)
    if ranked and ranked[0][0] > 0:  # some calls are inside timed windows: only those
        ranked = [item for item in ranked if item[0] > 0]
    if fn is not None and ranked:  # the learner's own jits: the first one's only
        callee = ranked[0][3][1]
        ranked = [item for item in ranked if item[3][1] is callee]
    return [item[3] for item in ranked[:MAX_CANDIDATES]]


def _innermost_windows() -> list[tuple[int, int]]:
    """The learner's innermost timed windows so far: the (start, stop) event numbers of
    its clock-reading subtractions (``instrument.PAIRS``, the latest
    :data:`MAX_WINDOWS`) that hold no other one, sorted. A sample's window is innermost;
    a total around the whole loop and its checks is not, so calls outside every sample
    cannot make their callable the one timed."""
    windows = sorted({(entry[0], entry[1]) for entry in _PAIRS[-MAX_WINDOWS:]
                      if type(entry) is tuple and len(entry) >= 2 and type(entry[0]) is int
                      and type(entry[1]) is int and entry[0] < entry[1]})
    innermost: list[tuple[int, int]] = []
    least_stop = None  # the smallest stop of the windows starting at or after this one
    for start, stop in reversed(windows):
        if least_stop is None or stop < least_stop:
            innermost.append((start, stop))
            least_stop = stop
    innermost.reverse()
    return innermost


def _inside(numbers: list[int], windows: list[tuple[int, int]], starts: list[int]) -> int:
    """How many of the event ``numbers`` lie strictly inside one of ``windows`` (sorted,
    none holding another, so their starts and their stops both ascend; ``starts``: their
    starts)."""
    count = 0
    for number in numbers:
        at = bisect.bisect_right(starts, number) - 1
        count += at >= 0 and number < windows[at][1]
    return count


def _runs_compiled(call: Any) -> bool:
    """``call`` is jax's own jit function, or a program compiled ahead of time."""
    if type(call) is _PJIT_TYPE:
        return True
    return (type(call) is _PARTIAL and call.func is _COMPILED_CALL
            and len(call.args) == 1 and type(call.args[0]) is stages.Compiled)


def _plain_tree(value: Any, depth: int = 0, seen: list[int] | None = None) -> bool:
    """Only exact tuples, lists and str-keyed dicts of arrays and built-in values: jax
    flattens them in C, with no learner method."""
    seen = [0] if seen is None else seen
    seen[0] += 1
    if depth > 8 or seen[0] > _MAX_LEAVES:
        return False
    kind = type(value)
    if kind is _ARRAY_TYPE or kind is _NDARRAY or kind in _PLAIN or kind in _NUMPY_SCALARS:
        return True
    if kind is tuple or kind is list:
        return all(_plain_tree(item, depth + 1, seen) for item in value)
    if kind is dict:
        return all(type(k) is str and _plain_tree(v, depth + 1, seen)
                   for k, v in value.items())
    return False


def time_runs(call: Any, args: tuple[Any, ...], kwargs: dict[str, Any], donating: bool,
              phases: frozenset[str]) -> tuple[list[float], list[float]]:
    """The runs' durations and their start reads (``perf_counter`` seconds, the stall
    watch's clock: the parent credits each run the time it lost, as it does a learner's
    sample). Inputs: the recorded arrays themselves when the call neither
    donates nor places them; else host copies (zeros of the same shape and dtype for an
    array already consumed), placed outside the clock for a donating call, inside it when
    the list's interval holds ``input placement``."""
    places = "input placement" in phases
    reads_back = "host transfer" in phases
    consumed = any(type(leaf) is _ARRAY_TYPE and _IS_DELETED(leaf) is True
                   for leaf in _TREE_LEAVES((args, kwargs)))
    host = _host_copies((args, kwargs)) if places or donating or consumed else None
    if host is not None:
        _warm(call, host)
    seconds: list[float] = []
    starts: list[float] = []
    spent = 0.0
    while _more_runs(len(seconds), spent):
        if host is not None and not places:
            run_args, run_kwargs = _placed(host)
            for leaf in _TREE_LEAVES((run_args, run_kwargs)):
                if type(leaf) is _ARRAY_TYPE:
                    _WAIT(leaf)
        else:
            run_args, run_kwargs = args, kwargs
        start = _CLOCK()
        if places:
            run_args, run_kwargs = _placed(host)
        out = call(*run_args, **run_kwargs)
        leaves = [leaf for leaf in _TREE_LEAVES(out) if type(leaf) is _ARRAY_TYPE]
        for leaf in leaves:
            _WAIT(leaf)
        if reads_back:
            for leaf in leaves:
                _ASARRAY(leaf)
        took = _CLOCK() - start
        seconds.append(took)
        starts.append(start)
        spent += took
        del out, leaves
    return seconds, starts


def _warm(call: Any, host: Any) -> None:
    """One untimed run on freshly placed host copies, waited for: the arrays the grader
    places are not the learner's, and a call on them may first compile for their placement
    (measured on exercise-8: without it the first run took 27-131 ms against the learner's
    3-10 ms samples, and with two runs the spread widened the bound by as much again)."""
    run_args, run_kwargs = _placed(host)
    out = call(*run_args, **run_kwargs)
    for leaf in _TREE_LEAVES(out):
        if type(leaf) is _ARRAY_TYPE:
            _WAIT(leaf)


def _more_runs(done: int, spent: float) -> bool:
    """Whether to time another run after ``done`` runs that took ``spent`` seconds."""
    if done < 2 or (done < MIN_RUNS and spent < LONG_S):
        return True
    return spent < BUDGET_S and done < MAX_RUNS


def _host_copies(tree: Any) -> Any:
    """``tree`` with each device array replaced by a NumPy copy (zeros for a deleted one)."""
    kind = type(tree)
    if kind is _ARRAY_TYPE:
        if _IS_DELETED(tree) is True:
            return _ZEROS(tree.shape, tree.dtype)
        return _ASARRAY(tree).copy()
    if kind is tuple or kind is list:
        return kind(_host_copies(item) for item in tree)
    if kind is dict:
        return {k: _host_copies(v) for k, v in tree.items()}
    return tree


def _placed(tree: Any) -> Any:
    """``tree`` with each NumPy array placed on the default device (not waited for)."""
    kind = type(tree)
    if kind is _NDARRAY:
        return _PUT(tree)
    if kind is tuple or kind is list:
        return kind(_placed(item) for item in tree)
    if kind is dict:
        return {k: _placed(v) for k, v in tree.items()}
    return tree


STALL_PERIOD_S = 0.010
"""How often the stall watch wakes up. Each wake-up takes the interpreter lock for a few
µs, inside whatever learner interval it falls in: measured on a ~0.3 ms jitted call timed
with a wait (8,000 samples each, interleaved rounds in random order, 2 cores at load 9),
a 2 ms period added 2.8 % to the median sample, 10 ms nothing measurable (-0.3 %). The
period is no resolution limit on a stall's length: a stall is credited over the whole
sleep it fell in (:meth:`StallWatch.stop`), and the wake-up lateness it leaves is what the
bound's load term measures (docs/checks.md, "sample-duration")."""
STALL_MIN_S = 0.001
"""A wake-up later than this past its time is a stall worth reporting."""
STALL_CAP = 10_000
TASKS = "/proc/self/task"
"""Where the process's threads' scheduler statistics are (``<tid>/schedstat``: CPU time,
time spent runnable but waiting for a CPU, time slices; nanoseconds)."""
SWEEP_EVERY = 5
"""The watch reads its threads' waits every 5th wake-up (every 50 ms), not every one: a
read of every thread's counters costs the watch's thread about 45 us, and at every wake-up
that took a core from the timed call's threads often enough to cost a 1.2 ms kernel 4 %
of its median on 2 cores (`benchmarks/grading_speed.py`, figure 4, 2026-12-06); a wait is
credited only up to its period's length either way."""
WAIT_MIN_S = 0.0005
"""A period in which some thread waited longer than this for a CPU is worth reporting."""
RUN_QUEUE_FILES = 256
"""The most threads a :class:`RunQueue` reads (a learner's call that starts thousands
would otherwise cost the watch a file and a read each)."""
HOLD_MIN_S = 0.0002
"""A wake-up that held the interpreter longer than this is a hold worth reporting
(:func:`watch_stalls`)."""
_OPEN: Callable[..., int] = os.open
_PREAD: Callable[[int, int, int], bytes] = os.pread
_CLOSE: Callable[[int], None] = os.close
_FSTAT: Callable[[int], Any] = os.fstat
_LISTDIR: Callable[[str], list[str]] = os.listdir


class RunQueue:
    """The time the process's threads spent runnable but waiting for a CPU (the
    scheduler's run-queue delay, ``/proc/self/task/<tid>/schedstat``'s second field): the
    threads that exist when it is made (the grader's and jax's: the thread that will run
    the learner's call, XLA's device threads) and each thread found at a later sweep (a
    helper thread the learner's call starts, such as asyncio's worker that waits for the
    output), all but the ones :meth:`skip` names (the stall watch's own). A learner's
    threads that keep each other waiting credit their samples nothing by it: a sample's
    credit never covers the learner's own work (``rubric.checks_intervals``,
    ``_off_cpu_at_most``). At most :data:`RUN_QUEUE_FILES` files are open at once.
    Each file is opened once and re-read with ``pread`` (about 2.5 µs a thread: a whole
    sweep of ~17 threads costs ~45 µs of the watch's thread, off the learner's, and the
    folder's listing a few µs more). Where the files cannot be read (gVisor, not Linux),
    or say that no thread has ever run (a stand-in file), :attr:`measured` is ``False``."""

    def __init__(self, tasks: str = TASKS) -> None:
        self._tasks = tasks
        self._files: list[list[Any]] = []  # [fd, identity, delay so far (ns), tid]
        self._skipped: set[str] = set()
        # Every thread number listed so far and not let go: a thread is opened at most
        # at its first listing, so one left out then (over RUN_QUEUE_FILES) is never
        # opened later with a lifetime's wait counted from 0.
        self._listed: set[str] = set()
        self._closed = False
        self.opened = _CLOCK()  # the first reads' time: the first period starts here
        ran = False  # a file that says no thread ever ran is a stand-in, not a measure
        listing = self._listing()
        self._listed.update(listing)
        for tid in listing:
            fields = self._open(tid)
            ran = ran or (fields is not None and fields[0] > 0)
        self.measured = ran
        if not ran:
            self.close()

    def _listing(self) -> list[str]:
        """The threads' folder names (empty where the folder cannot be read)."""
        try:
            return _LISTDIR(self._tasks)
        except OSError:
            return []

    def _open(self, tid: str, delay: int | None = None) -> tuple[int, int] | None:
        """Open ``tid``'s file and keep it with its wait so far (``delay``: the figure to
        count from, ``None``: the file's own); the thread's fields, or ``None`` (not
        opened: an exited thread, an unreadable file)."""
        try:
            fd = _OPEN(f"{self._tasks}/{tid}/schedstat", os.O_RDONLY)
        except OSError:
            return None
        fields = self._fields(fd)
        if fields is None:
            _CLOSE(fd)
            return None
        status = _FSTAT(fd)
        if self._closed:  # closed meanwhile (:meth:`close` from another thread)
            _CLOSE(fd)
            return None
        self._files.append([fd, (status.st_dev, status.st_ino),
                            fields[1] if delay is None else delay, tid])
        return fields

    def skip(self, native_id: int) -> None:
        """Never measure the thread ``native_id`` (the caller's own: the stall watch's
        waits delay no sample, as it holds no learner work)."""
        tid = str(native_id)
        self._skipped.add(tid)
        for entry in [e for e in self._files if e[3] == tid]:
            self._files.remove(entry)
            _CLOSE(entry[0])

    def _discover(self) -> None:
        """Open the files of threads begun since the last sweep, each counted from 0: all
        of a new thread's wait for a CPU fell after the last listing, so inside the
        period this sweep notes. A thread listed before is never opened now (one left
        out at its first listing, over :data:`RUN_QUEUE_FILES`, stays unmeasured)."""
        if self._closed:
            return
        for tid in self._listing():
            if tid in self._listed:
                continue
            self._listed.add(tid)
            if tid not in self._skipped and len(self._files) < RUN_QUEUE_FILES:
                self._open(tid, delay=0)

    @staticmethod
    def _fields(fd: int) -> tuple[int, int] | None:
        """The thread's CPU time and run-queue delay so far (ns), or ``None`` (an exited
        thread, an unreadable file)."""
        try:
            fields = _PREAD(fd, 128, 0).split()
            return (int(fields[0]), int(fields[1])) if len(fields) == 3 else None
        except (OSError, ValueError):
            return None

    @classmethod
    def _read(cls, fd: int) -> int | None:
        """The thread's run-queue delay so far (ns), or ``None``."""
        fields = cls._fields(fd)
        return None if fields is None else fields[1]

    def sweep(self) -> float:
        """The longest any one thread waited for a CPU since the last sweep, in seconds
        (the longest, not the sum: threads that wait at the same time delay a sample once;
        see docs/checks.md, "sample-duration"). Threads begun since are found first; a
        thread that has exited is let go (its number may be a new thread's later)."""
        self._discover()
        longest = 0
        for entry in list(self._files):
            delay = self._read(entry[0])
            if delay is None:
                if self._is_gone(entry):
                    self._files.remove(entry)
                    self._listed.discard(entry[3])
                    _CLOSE(entry[0])
                continue
            if delay - entry[2] > longest:
                longest = delay - entry[2]
            entry[2] = delay
        return longest / 1e9

    @staticmethod
    def _is_gone(entry: list[Any]) -> bool:
        """Whether ``entry``'s file is still the one opened (so its thread has exited),
        not a number learner code reused (:meth:`intact` must still see that)."""
        try:
            status = _FSTAT(entry[0])
        except OSError:
            return False
        return (status.st_dev, status.st_ino) == entry[1]

    def intact(self) -> bool:
        """Whether each file is still the one opened: learner code that closed one and
        opened another under its number could feed the sweep any figure."""
        for fd, identity, _delay, _tid in list(self._files):
            try:
                status = _FSTAT(fd)
            except OSError:
                return False
            if (status.st_dev, status.st_ino) != identity:
                return False
        return True

    def close(self) -> None:
        """Close the files; later sweeps open none."""
        self._closed = True
        files, self._files = self._files, []
        for fd, _identity, _delay, _tid in files:
            with contextlib.suppress(OSError):  # closed by learner code meanwhile
                _CLOSE(fd)


class StallWatch:
    """A grader thread that sleeps :data:`STALL_PERIOD_S` at a time and notes how late
    each wake-up came: the wake-ups more than :data:`STALL_MIN_S` late are the windows in
    which this process could not run Python (the machine's other tasks held the CPUs, the
    hypervisor paused it, a garbage collection held the interpreter), and the latest of
    all measures how long a woken thread waited for a CPU in this run (the
    ``sample-duration`` bound's load term). Every fifth wake-up it also sweeps a
    :class:`RunQueue` of the process's threads but its own: the periods in which one of
    them waited for a CPU longer than :data:`WAIT_MIN_S` (a busy thread the scheduler
    kept waiting, which a sleeping watch's own wake-ups do not show). Run around
    a learner call and the grader's own timing of it; a learner sample is not blamed for a
    stall or a wait inside it. The thread is started with ``_thread`` (``threading`` does
    not list it), sleeps with the original ``time.sleep`` (no sleep event) and reads the
    clock the grader's runs use; where ``/proc`` has no schedstat (gVisor) it measures
    stalls only."""

    def __init__(self) -> None:
        self._queue = RunQueue()
        # [stop asked, stalls, [wakes, latest], waits, holds]
        self._state: list[Any] = [False, [], [0, 0.0], [], []]
        self.realtime_offset = _REALTIME() - _CLOCK()
        _START_THREAD(watch_stalls, (self._state, self._queue))

    def stop(self) -> list[list[float]]:
        """Stop the thread; the stalls seen, ``[[slept, woke, late], ...]``: a wake-up
        ``late`` seconds past its time, after a sleep from ``slept`` to ``woke``
        (``perf_counter`` seconds). The lost time lies somewhere in that sleep."""
        self._state[0] = True
        return [list(stall) for stall in self._state[1]]

    def waits(self) -> list[list[float]] | None:
        """After :meth:`stop`: the periods in which a thread waited for a CPU,
        ``[[start, end, waited], ...]``: between ``start`` and ``end`` (``perf_counter``
        seconds) one thread spent ``waited`` seconds runnable but not running. ``None``
        where the run queue could not be read; ``[]`` (nothing to credit) when its files
        were tampered with."""
        queue = self._queue
        try:
            if not queue.measured:
                return None
            return [list(wait) for wait in self._state[3]] if queue.intact() else []
        finally:
            queue.close()

    def holds(self) -> list[list[float]]:
        """After :meth:`stop`: the windows in which the watch held the interpreter lock
        longer than :data:`HOLD_MIN_S`, ``[[start, end, held], ...]`` (``perf_counter``
        seconds; :func:`watch_stalls`)."""
        return [list(hold) for hold in self._state[4]]

    def wakes(self) -> int:
        """How many times the thread has woken so far."""
        return int(self._state[2][0])

    def latest_wake(self) -> float | None:
        """The latest any wake-up came past its time so far, in seconds; ``None`` before
        the first wake-up."""
        wakes, latest = self._state[2]
        return float(latest) if wakes else None


def watch_stalls(state: list[Any], queue: RunQueue | None = None) -> None:
    """The stall watch's loop (the body of :class:`StallWatch`'s thread; public so a test
    can run it on a fake clock and a fake run queue): sleep, note each late wake-up and,
    with ``queue`` (told to skip this thread), each period a thread waited for a CPU,
    until ``state[0]``. A sweep's figure accrued between the start of the sweep before
    and the end of this one: that is the period noted. The files stay open
    (:meth:`StallWatch.waits` closes them): a sweep after the stop reads a closed number,
    an error it skips, and opens no new file."""
    stalls, lateness = state[1], state[2]
    waits = state[3] if len(state) > 3 else []
    holds = state[4] if len(state) > 4 else []
    swept = _CLOCK() if queue is None else queue.opened
    if queue is not None and queue.measured:
        queue.skip(_NATIVE_ID())
    while not state[0]:
        slept = _CLOCK()
        _SLEEP(STALL_PERIOD_S)
        woke = _CLOCK()
        late = woke - slept - STALL_PERIOD_S
        lateness[0] += 1
        if late > lateness[1]:
            lateness[1] = late
        if late > STALL_MIN_S and len(stalls) < STALL_CAP:
            stalls.append((slept, woke, late))
        if queue is not None and queue.measured and lateness[0] % SWEEP_EVERY == 0:
            waited = queue.sweep()
            if waited > WAIT_MIN_S and len(waits) < STALL_CAP:
                waits.append((swept, _CLOCK(), waited))
            swept = woke
        _note_hold(holds, woke, _CLOCK())


def _note_hold(holds: list[Any], woke: float, done: float) -> None:
    """Note the window in which this wake-up held the interpreter lock, when longer
    than :data:`HOLD_MIN_S`: ``(woke, done, done - woke)``. A few us, unless the
    machine's load preempts the watch there: then for a scheduler's slice, and a
    learner's thread that returns from a call or a wait meanwhile sleeps on the lock,
    neither pausing nor waiting for unrecorded work. Only the hold itself: a late
    wake-up's wait for a CPU before it (which may have made a learner's thread holding
    the lock let go, CPython's forced switch) is no hold, as that thread, if it was in
    a ``select`` instead, never wanted the lock (crediting it let a 5 ms pause in every
    sample pass the 2x margin under heavy load)."""
    if done - woke > HOLD_MIN_S and len(holds) < STALL_CAP:
        holds.append((woke, done, done - woke))
