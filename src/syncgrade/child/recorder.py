"""The child-side event log and report channel, sealed away from the learner's code.

Everything the instrumentation observes becomes a small dict with a ``seq`` taken from one
counter, so the parent can place any event inside or outside a timed interval exactly,
without comparing clocks. Events are plain dicts (not pydantic models) because they are
created on hot paths inside the learner's timed loop; the parent validates them into
:mod:`syncgrade.trace` models.

Sealing (docs/security.md, "The sealed recorder"). The learner's code runs in the same
interpreter and can reach the :class:`Recorder` (through the hooks' closures), so the
recorder holds no state of its own. The event log, the array tokens, the ``enabled`` flag,
the latest call's outputs, the report-channel key and the channel fd live in the locals of
one generator frame (:func:`_core`). A suspended generator's frame is reachable only through
``gi_frame``, which CPython audits and :mod:`syncgrade.child.guard` refuses. The core:

- reads the clocks itself: the installed ``time.perf_counter`` and its siblings only send
  a clock-read message, so no value in a clock read comes from the reader;
- is entered by one thread at a time: every send holds the recorder's lock (a generator
  sent to while another thread is inside it raises "generator already executing");
- accepts any other event only from a grader hook: the code object of the frame that
  called :meth:`Recorder.emit` must be one of the registered hook codes, or the frame that
  called ``send`` must itself run a hook code registered as a direct sender of that event
  kind (:meth:`Recorder.register`; the hot hooks send without a method frame in between);
  otherwise the attempt is recorded as tampering;
- takes the learner's subtractions of clock reads from a list the hooks append to, checking
  each against the reads it made;
- re-checks, on every accepted event, that the hooks' closure cells and the grader
  modules' globals still hold what they held when the hooks were installed (cell writes and
  ``__globals__`` writes are not audited, so they are compared instead);
- accepts control operations (enable, reset, send a frame) only from the main thread,
  where no learner code runs (learner code runs on a worker thread, see ``__main__``), and
  only from the registered control code objects;
- writes every frame itself: ``seq`` + HMAC-SHA256 over the body with the job's key, in the
  strict order hello, load, one call frame per job call, end (``protocol.next_frames``,
  the parent's definition too, run as a copy whose globals are the core's own, see
  ``private_globals``). A send out of that order is tampering. The body is encoded with
  the C JSON encoder only, after reducing every value to exact built-in types, so no
  learner-defined method ever runs inside the core's frame (a learner frame called from
  here would reach its locals through ``f_back``). The rare operations (REGISTER, PROTECT,
  SEND, STATUS, NOTE, RESET, DESIGNATE, CANCEL, COMPILE) are handler closures in the
  core's frame (``on_*``); the hot ones (TIMER, SITED, CALL, EMIT) stay inline in its
  loop, and their fast locals (``enabled``, ``latest_call``, ``latest_outputs``,
  ``designated``, ``reading_types``, ``timer_files``, ``hook_globals``, ``files_seen``)
  are never rebound by a handler: it returns the new value for the loop to bind.
"""

from __future__ import annotations

import _json
import _thread
import bisect
import builtins
import itertools
import operator
import os
import sys
import time
import types
import weakref
from collections.abc import Generator, Iterable
from typing import Any

from syncgrade import protocol
from syncgrade.protocol import (
    CALL,
    CANCEL,
    COMPILE,
    DESIGNATE,
    EMIT,
    ENABLED,
    NOTE,
    PROTECT,
    REGISTER,
    RESET,
    SEND,
    SET,
    SITED,
    STATUS,
    TIMER,
    TOKEN,
)

Event = dict[str, Any]
NEVER_SENDS = "recorder: a hook sent an event its code never sends"
REPLACED = "recorder: a hook's captured functions or globals were replaced"
NEVER_MADE = "recorder: a subtraction of clock reads that were never made"
NOT_A_HOOK = "recorder: an event was sent by code that is not a grader hook"

# The clocks the timer hooks stand in for, as they were when this module was imported
# (before any hook, before any learner code). The core reads the clock itself: a hook's
# code can be run with a closure of the learner's making (``types.FunctionType(hook.
# __code__, ...)``), whose "original" clock would say whatever the learner liked.
CLOCKS = tuple((name, getattr(time, name)) for name in (
    "perf_counter", "monotonic", "time", "perf_counter_ns", "monotonic_ns", "time_ns",
    # CPU-time clocks: recorded as reads, told apart by the parent (analysis.CPU_CLOCKS).
    "process_time", "process_time_ns", "thread_time", "thread_time_ns"))
# The clock ids ``time.clock_gettime`` and ``clock_gettime_ns`` are recorded for (those this
# platform has), and the clocks the core reads for them: (name, C function, clock id).
CLOCK_IDS = tuple(name for name in (
    "CLOCK_MONOTONIC", "CLOCK_REALTIME", "CLOCK_MONOTONIC_RAW", "CLOCK_BOOTTIME",
    "CLOCK_PROCESS_CPUTIME_ID", "CLOCK_THREAD_CPUTIME_ID") if hasattr(time, name))
ID_CLOCKS = tuple((f"{function}({name})", getattr(time, function), getattr(time, name))
                  for function in ("clock_gettime", "clock_gettime_ns")
                  if hasattr(time, function) for name in CLOCK_IDS)
# Reads a thread's CPU clock by its id (``time.pthread_getcpuclockid``): the learner's
# threads' CPU time, bound before any hook replaces ``time.clock_gettime_ns``.
THREAD_CLOCK = getattr(time, "clock_gettime_ns", None)
# ``datetime.datetime.now()``, ``utcnow()`` and ``today()`` (instrument.DateTime): the
# system clock in integer nanoseconds, floored to the microsecond as datetime does.
DATETIME_CLOCKS = ("datetime.now", "datetime.utcnow", "datetime.today")

# Operation codes for the core generator, defined in syncgrade.protocol (re-exported here
# for the hooks and the harness). Any other code is refused as a control step from
# learner code. DESIGNATE: (DESIGNATE, [callables]): the callables the grader hands to
# the learner in the coming call, numbered 1, 2, ... in that order; a recorded call of one
# of them carries its number as ``fn`` (0: anything else the learner called).


def _usage_of_thread() -> tuple[Any, int]:
    """``resource.getrusage`` and ``RUSAGE_THREAD`` (Linux), or ``(None, 0)`` where the
    platform has no per-thread usage: the reads then carry no switch count."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not Linux
        return None, 0
    who = getattr(resource, "RUSAGE_THREAD", None)
    return (None, 0) if who is None else (resource.getrusage, who)


SCHEDSTAT = "/proc/thread-self/schedstat"
"""The calling thread's scheduler statistics (Linux): CPU time, run-queue delay, time
slices. Its second field, the nanoseconds the thread spent runnable but waiting for a
CPU, is complete for a running thread (the kernel adds each wait when the thread is
switched in); the first is not (it lags a running thread by up to a tick), so the CPU
time is read from the thread's CPU clock instead."""
BLOCKED_THREADS_CAP = 256
"""Threads whose schedstat file a :func:`blocked_clock` keeps open, at most (one fd
each); a thread beyond them gets no blocked stamp."""
LOG_THIN_AT = 20_000
"""A call's log longer than this many events is thinned before it is sent (``_core``,
``thin_log``): its first :data:`LOG_HEAD` and last :data:`LOG_TAIL` events are kept
whole, of the events between only the kinds other than :data:`THINNED_KINDS`
(compilations, placements, writes, sleeps, eager work, callbacks...), and every pair whose
two reads are kept. Below the parent's limits (32 MiB, 500,000 JSON values: some 12 an
event, so about 40,000 events; a log of 38,000 was refused under load), above any other
log of the corpus (6,137 events at most, 2026-12-07): what it changes is a grade that
would otherwise be refused for too much data, such as a time-based warm-up of a cheap
program (six events a turn, 200,000 in two seconds)."""
LOG_HEAD, LOG_TAIL = 2_000, 8_000
LOG_SHORT = 200
"""A pair of reads at most this many events apart is a short interval, kept whole with
as many events before it wherever it lies in a thinned log."""
THINNED_KINDS = frozenset({"timer", "ready", "pair", "call", "return", "wait", "gc"})
READ_RUN_KEPT = 16
"""The reads of a run of clock reads kept in the log besides its latest (``_core``): a
busy-wait that reads the clock a hundred thousand times between two samples is 17 reads,
not a log the grader refuses as too much data (a correct exercise-1 file with a 50 ms
busy-wait pause before each sample failed ``runs`` so). A handful of reads in a row
(three clocks read at a start, a timer's overhead measured first) stays whole."""
READ_RUN_TAIL = 4
"""The dropped reads at the end of each run (before its latest) set aside while a call
runs, each put back in the log if a learner's subtraction takes it from a read made
before its run began. A busy-wait inside a sample, after its wait (``while
perf_counter() - begun < 0.002: pass``), runs on into the stop read and the next
sample's start read: the run's latest read is then the next start, and the stop read
was one of the dropped, so the sample's own interval went missing and a padded sample
read as no difference of clock readings (``samples-measured``, ``times-the-call``)
instead of the host work it is (``interval-clean``). The busy-wait's own subtractions
(from ``begun``, inside the run) bring nothing back, so it stays a few reads."""


def blocked_clock(path: str = SCHEDSTAT) -> Any:
    """A per-thread "blocked" clock: ``blocked(cpu)`` returns the calling thread's
    monotonic wall time (ns) less ``cpu`` (its CPU clock, read by the caller just before)
    less its run-queue delay so far, that is the time it has spent off a CPU and not
    runnable (sleeping, waiting on a lock, a futex, a pipe, a socket, ``select``, the
    interpreter lock) plus a constant; or ``None`` where that cannot be read (no such
    file: gVisor, not Linux; a file that says the thread never ran: statistics off). Only
    differences of one thread's stamps mean anything (docs/checks.md, "interval-clean":
    unrecorded blocking). Each thread's file is opened once, on its first stamp, and
    re-read with ``pread`` (~1-5 µs); the file is keyed by the thread's kernel id, so a
    reused Python ident never reads another thread's figures. Order: CPU time, wall
    time, run-queue delay; a preemption between the last two makes the stamp low, never
    high (a stop read's stamp errs towards less blocking). The clock jitters by a few µs
    (measured: -1.5 to +0.6 µs between consecutive stamps of a thread that did not
    block, once -11 µs: the CPU clock and the run-queue delay come from the scheduler's
    per-CPU clocks, the wall time from another), nothing against the millisecond bound
    it is judged by."""
    files: dict[int, int] = {}
    native_id = _thread.get_native_id
    monotonic = time.monotonic_ns
    pread, open_, read_only = os.pread, os.open, os.O_RDONLY
    int_type, cap = int, BLOCKED_THREADS_CAP
    unreadable = [False]  # no such file: not tried again (an open is an audited event)

    def blocked(cpu: int) -> int | None:
        tid = native_id()
        fd = files.get(tid)
        try:
            if fd is None:
                if unreadable[0] or len(files) >= cap:
                    return None
                try:
                    fd = files[tid] = open_(path, read_only)
                except FileNotFoundError:
                    unreadable[0] = True
                    return None
            now = monotonic()
            fields = pread(fd, 96, 0).split()
            if len(fields) != 3 or fields[2] == b"0":
                return None
            return now - cpu - int_type(fields[1])
        except (OSError, ValueError):
            return None

    return blocked


# The hooks' blocked clock (its files, one per thread that stamped), made before any
# learner code. Learner code can reach it (and replace its code or cells), which only
# changes the begin and end stamps the hooks send, as a forged mark can; the core makes a
# clock of its own (see _core).
BLOCKED = blocked_clock()


# The protocol's frame order; the core uses the sealed copy private_globals makes.
_NEXT_FRAMES = protocol.next_frames


def _core(key: bytes, channel_fd: int, expected: tuple[str, ...], main_thread: int,
          control_codes: frozenset[Any], is_ready: Any, is_deleted: Any,
          array_type: type) -> Generator[Any, Any, None]:
    """The sealed state machine; see the module docstring. Uses only C callables bound to
    locals here, so nothing it calls can be replaced from learner code."""
    import _hashlib

    # This generator's own frame, taken once: while a send() runs it, its f_back is the
    # frame that called send(), exactly what getframe(1) would return, without an audited
    # sys._getframe per event (every audited event calls the guard's Python hook).
    me: Any = sys._getframe(0)
    # Identity without id(): CPython audits every id() call ("builtins.id"), and each
    # audited event calls the guard's hook. object.__hash__ is the object's address,
    # rotated (a one-to-one map of live objects), and is not audited.
    address = object.__hash__
    get_ident = __import__("_thread").get_ident
    write = os.write
    pack = protocol.HEADER.pack
    mac_algorithm = protocol.MAC_ALGORITHM
    call_kind, load_kind, end_kind = protocol.CALL_FRAME, protocol.LOAD, protocol.END
    # The protocol's order (protocol.next_frames), a copy made before any learner code
    # whose globals hold only the constants it names and ``len`` (see private_globals).
    next_frames = _NEXT_FRAMES
    digest = _hashlib.hmac_digest
    ref = weakref.ref
    is_ = operator.is_
    encode = _json.make_encoder(None, id, _json.encode_basestring_ascii, None, ":", ",",
                                False, False, True)
    str_type, list_type, tuple_type, dict_type = str, list, tuple, dict
    seq = itertools.count(1)
    next_token = itertools.count(1)
    tokens: dict[int, tuple[Any, int]] = {}
    events: list[Event] = []
    enabled = False
    latest_call: int | None = None
    # address(callable) -> (the callable, its number): the grader's callables for the
    # current call (DESIGNATE), compared by identity.
    designated: dict[int, tuple[Any, int]] = {}
    latest_outputs: list[Any] = []
    tampered: list[str] = []
    # Bound now, before any learner code: the clocks a TIMER reads (a later change to the
    # module's CLOCKS, or to ``time``, does not reach them).
    clocks = dict_type(CLOCKS)

    def with_id(read: Any, clock_id: int) -> Any:
        def read_id() -> Any:
            return read(clock_id)
        return read_id

    def to_microsecond(read: Any) -> Any:
        def read_floored() -> int:
            ns = read()
            return ns - ns % 1000
        return read_floored

    # Readers of the core's own making (C functions and ints bound now, nothing a
    # learner can reach or change): clock_gettime with its clock id, and datetime's clock.
    for id_clock, function, clock_id in ID_CLOCKS:
        clocks[id_clock] = with_id(function, clock_id)
    for id_clock in DATETIME_CLOCKS:
        clocks[id_clock] = to_microsecond(clocks["time_ns"])
    # Code objects are compared by identity: address -> the code object itself (kept
    # alive here, so an address is never reused). A learner cannot make a code object
    # that *is* a grader's, while an equal copy would pass a set's ``in`` test; and
    # hashing a code object hashes its constants and names again on every event.
    control_ids = {address(code): code for code in control_codes}
    hook_ids: dict[int, Any] = {}
    emit_ids: dict[int, Any] = {}
    # address(hook code) -> the event kinds that code sends itself (a direct sender: the
    # frame that called send() runs it; it must also be a hook code, which ``accept``
    # checks). Registered once, from the main thread, before PROTECT, that is before any
    # learner code exists; the codes are kept alive in ``direct_codes``.
    direct: dict[int | None, frozenset[str]] = {}
    direct_codes: list[Any] = []
    registered = protected_once = False
    # address(hook code) -> (the code, cells, their values, ((itemgetter of the names or
    # None, module dict, their values, the dict's size, builtins it must not shadow),
    # ... one per dict))
    checks: dict[int, tuple[Any, ...]] = {}
    get_cell = operator.attrgetter("cell_contents")
    sizeof = dict.__sizeof__  # C, on an exact dict (a module's): no Python code runs
    itemgetter = operator.itemgetter
    seq_of = itemgetter("seq")
    bisect_right = bisect.bisect_right
    frames_sent = 0
    ended = False
    reads: dict[int, Any] = {}
    # A run of clock reads (one thread, one clock, nothing else numbered between them:
    # a busy-wait ``while perf_counter() - t0 < s: pass``) keeps its first READ_RUN_KEPT
    # reads and its latest one in the log; the reads between are dropped (and so are the
    # pairs that name them: take_pairs), as a run of writes is one write. Every interval
    # that holds any recorded operation begins with the last read of a run and ends with
    # the first of one, so no such interval loses a read. The run so far: its (thread,
    # clock), how many reads, the latest read's number and where its events begin in the
    # log, and the number and log length right after them.
    run_key: Any = None
    run_count = run_read = run_index = run_next = run_length = run_first = 0
    dropped_reads: set[int] = set()
    # The latest dropped reads of the current run (READ_RUN_TAIL of them, each with its
    # events: the read and its readiness) and of the call's ended runs: put back by
    # take_pairs when a subtraction pairs one with a read the log holds.
    run_tail: list[Any] = []
    set_aside: dict[int, Any] = {}
    core_made = frozenset({"timer", "ready", "pair", "call", "return", "gc"})
    # The learner's subtractions, appended by the hooks (Recorder.register; take_pairs).
    pair_log: list[Any] = []
    # Compilations reported from inside a jitted call, not yet numbered (number_compiles).
    pending_compiles: list[Event] = []
    # The hooks' end marks, appended without a send (instrument._MARKS, registered with
    # REGISTER): (wait seq, CPU time at its end) and (-1, GC start CPU, GC end CPU,
    # thread ident); taken and checked when the call's frame is written (take_marks).
    mark_log: list[Any] = []
    # CPU accounting (docs/checks.md, "interval-clean"): the sending thread's CPU time,
    # read by the core itself with the clock bound now (before any hook or learner code).
    # Threads are numbered in the order they first send (``th``, left out when 0).
    cpu_clock = time.thread_time_ns
    # The core's own blocked clock (blocked_clock: wall time less CPU time less run-queue
    # delay, per thread; ``None`` where schedstat cannot be read), made now with the
    # core's private globals: a Python function only this frame holds. The module's
    # BLOCKED is the learner's to reach, and its code would run inside this frame.
    blocked_ns = types.FunctionType(blocked_clock.__code__, globals(), "blocked_clock")(
        SCHEDSTAT)
    blocking_kinds = frozenset({"wait", "placement"})
    # And on each clock read, the reading thread's voluntary context switches so far
    # (``vcs``): each is a few µs of that thread's CPU time spent on switching, not on
    # its own work (analysis.SWITCH_ALLOWANCE_NS). getrusage is a C function, not audited.
    usage, usage_thread = _usage_of_thread()
    threads: dict[int, int] = {}
    # The CPU time of the threads the learner's code started (instrument._THREADS, the
    # list their wrapper appends births and ends to; REGISTER): on each learner clock
    # read once one exists, the sum over all of them but the reader (``others``), live
    # ones read through their own CPU clock, ended ones as they said at the end.
    thread_log: list[Any] = []
    thread_clocks: dict[int, int | None] = {}  # ident -> CPU clock id, while alive
    ended_ns = 0  # the CPU time of the learner's threads that have ended
    # How many of them have begun and ended so far: each clock read carries both
    # (``others_born``, ``others_ended``), so the parent knows how many threads' clocks an
    # interval's ``others`` is read from (each reading is a step of its clock off at most).
    born_count = ended_count = 0
    counting_threads = False  # a learner thread has begun: reads carry ``others``
    read_thread_clock = THREAD_CLOCK
    # Computed at PROTECT: addresses of the hook codes that record calls (a compilation
    # with one of them on its stack is inside a call).
    call_ids: frozenset[int] = frozenset()
    # Registered with the hooks (REGISTER), before any learner code: the Reading type
    # each clock's reads are returned as, and the learner files whose reads count.
    reading_types: dict[str, Any] = {}
    timer_files: frozenset[str] = frozenset()
    hook_globals: Any = None
    int_type, float_type, frozenset_type = int, float, frozenset
    # The learner files last sent (held: identity is the cache key) and their exact-str
    # members, the only ones the core compares filenames with.
    files_seen: Any = None
    safe_files: frozenset[str] = frozenset()

    def stamp(fields: Event, blocking: bool = False) -> int:
        # The sending thread's CPU time and number on ``fields``; returns the time. With
        # ``blocking`` (clock reads and the operations whose blocking is credited:
        # calls, waits, placements), also its blocked clock (``blk``, BLOCKED):
        # one pread, only where unrecorded blocking is accounted.
        ident = get_ident()
        th = threads.get(ident)
        if th is None:
            th = threads[ident] = len(threads)
        fields["cpu"] = now = cpu_clock()
        if blocking:
            off = blocked_ns(now)
            if off is not None:
                fields["blk"] = off
        if th:
            fields["th"] = th
        return now

    def take_threads() -> None:
        # The births and ends the learner's threads appended since the last read, in
        # order (an ident is reused once its thread has gone: its end comes first). Only
        # the entries taken are removed: a thread may append while this runs.
        nonlocal ended_ns, counting_threads, born_count, ended_count
        entries = thread_log[:]
        del thread_log[:len(entries)]
        for entry in entries:
            if type(entry) is not tuple_type or len(entry) != 3:
                continue
            ident, clock_id, spent = entry
            # A clock id is negative on Linux (it encodes the thread's id); None: none.
            if type(ident) is not int_type or type(spent) is not int_type or (
                    clock_id is not None and type(clock_id) is not int_type):
                continue
            if spent < 0:
                thread_clocks[ident] = clock_id
                counting_threads = True
                born_count += 1
            elif ident in thread_clocks:  # the end of a thread whose birth was seen
                del thread_clocks[ident]
                ended_ns += spent
                ended_count += 1

    def others_cpu(reader: int) -> int:
        # The CPU time of the learner's threads but ``reader``, ended and alive. A thread
        # that ends between taking the log and reading its clock (its clock then fails)
        # has appended its end already: take the log again.
        total = 0
        for _attempt in range(4):
            take_threads()
            total = ended_ns
            try:
                for ident, clock_id in dict_type.items(thread_clocks):
                    if ident != reader and clock_id is not None \
                            and read_thread_clock is not None:
                        total += read_thread_clock(clock_id)
            except OSError:
                continue
            break
        return total

    def take_marks() -> None:
        # The end marks since the call began (see ``mark_log``). Learner code can reach
        # the list: a mark is kept only if it is two, three or four exact ints, a wait's end no
        # earlier than its start, a GC pause on a thread that sent events. A forged mark
        # can only call the learner's own CPU time explained, as hiding an event can.
        entries = mark_log[:]
        mark_log.clear()
        waits = None
        for entry in entries:
            if type(entry) is not tuple_type or not all(
                    type(item) is int_type for item in entry):
                continue
            if len(entry) in (2, 3):
                if waits is None:
                    waits = {e["seq"]: e for e in events if e["kind"] == "wait"}
                fields = waits.get(entry[0])
                if fields is not None and "cpu" in fields and entry[1] >= fields["cpu"]:
                    fields["cpu_end"] = entry[1]
                    # (wait seq, CPU time, blocked clock at its end): the third only
                    # where the wait's start has a blocked stamp; never before it (the
                    # clock is known to a few µs: it jitters, see BLOCKED).
                    if len(entry) == 3 and "blk" in fields:
                        fields["blk_end"] = max(entry[2], fields["blk"])
            elif len(entry) == 4 and entry[0] == -1 and entry[3] in threads \
                    and entry[1] <= entry[2]:
                pause = {"seq": next(seq), "kind": "gc", "cpu": entry[1],
                         "cpu_end": entry[2]}
                if threads[entry[3]]:
                    pause["th"] = threads[entry[3]]
                events.append(pause)

    def all_ready(arrays: list[Any]) -> bool:
        # Whether every one of ``arrays`` is ready (a deleted or invalid one makes no
        # claim). is_ready() on a deleted array segfaults: is_deleted() first.
        for array in arrays:
            try:
                if not is_deleted(array) and not is_ready(array):
                    return False
            except Exception:  # donated or invalid: no claim
                continue
        return True

    def clean(value: Any, depth: int = 0) -> Any:
        # Exact built-in types only: the C encoder then calls no Python-level method.
        kind = type(value)
        if kind is int or kind is float or kind is str_type or kind is bool or value is None:
            return value
        if depth > 12:
            return None
        if kind is list_type or kind is tuple_type:
            return [clean(item, depth + 1) for item in value]
        if kind is dict_type:
            return {k: clean(v, depth + 1) for k, v in dict_type.items(value)
                    if type(k) is str_type}
        return None

    def tokens_of(arrays: Any) -> list[int]:
        # An exact list only (iterating anything else could run learner code here).
        # ``token`` written out for each array: one Python call per event, not one per
        # array plus a comprehension's.
        if type(arrays) is not list_type:
            raise TypeError("arrays")
        found = []
        for array in arrays:
            key_ = address(array)
            entry = tokens.get(key_)
            if entry is not None and entry[0]() is array:
                found.append(entry[1])
                continue
            new = next(next_token)
            try:  # noqa: SIM105
                tokens[key_] = (ref(array), new)
            except TypeError:
                pass
            found.append(new)
        return found

    def exact_strs(files: Any) -> frozenset[str]:
        # The exact-str members of an exact frozenset (a frozenset cannot change, so the
        # caller keeps the result as long as it is sent the same object; it holds that
        # object, so the identity test stays meaningful). Nothing else is compared here.
        if type(files) is not frozenset_type:
            return frozenset_type()
        return frozenset_type([f for f in files if type(f) is str_type])

    def intact(hook_code_id: int | None) -> bool:
        # The code whose address is ``hook_code_id`` must be a grader hook whose captured
        # cells and globals are unchanged; otherwise the attempt is recorded as tampering.
        if hook_code_id not in hook_ids:
            tampered.append(NOT_A_HOOK)
            return False
        # Intact? Only what this hook's code can reach: its closures' cells and the
        # module globals its code (and the grader helpers it calls) names. C loops only.
        entry = checks.get(hook_code_id)
        if entry is not None:
            _code, cells, cell_values, namespaces = entry
            ok = not cells or all(map(is_, map(get_cell, cells), cell_values))
            # Per module dict: first its size. A key that is not an exact str (a
            # learner's str subclass, whose __eq__ a lookup here would call with this
            # frame below it) turns a dict's all-str key table into a general one of
            # another size, and ``dict.__sizeof__`` runs no Python code. Only then
            # lookups: no builtin the code uses may have been shadowed by a new global of
            # that name, and one itemgetter call fetches the names it uses, compared by
            # identity (== could run a learner's __eq__ here). A deleted name is a
            # KeyError: replaced.
            for getter, namespace, values, size, builtins_used in namespaces:
                if not ok:
                    break
                if sizeof(namespace) != size or (
                        builtins_used and not namespace.keys().isdisjoint(builtins_used)):
                    ok = False
                    break
                try:
                    ok = getter is None or all(map(is_, getter(namespace), values))
                except KeyError:
                    ok = False
            if not ok:
                tampered.append(REPLACED)
                return False
        return True

    def accept(kind: str, fields: Any, number: int, hook_code_id: int | None) -> None:
        # An EMIT or SITED event, once its sender is known: appended if the hook is intact.
        # The kinds the core makes itself (clock reads, their readiness, subtractions,
        # calls and returns) never come this way.
        if type(kind) is not str_type or kind in core_made:
            tampered.append(NEVER_SENDS)
            return
        if intact(hook_code_id):
            fields["seq"] = number
            fields["kind"] = kind
            events.append(fields)

    def coalesced(last: Any, fields: Any, number: int, hook_code_id: int | None) -> bool:
        # A write straight after a write of the same thread to the same stream, with no
        # event numbered between them (``last`` holds the number just before), is the
        # same run of output: ``last`` counts it (``count``) and takes its number, so the
        # next write of the run joins it too. Between two events nothing can tell the
        # writes of one run apart, and a run of 200,000 debug lines outside every timed
        # interval is one event, not 400,000 (each a stack walk, and a record the
        # grader would refuse as too much data). Its site is the run's first write's.
        # A hook that is not intact is recorded as tampering and its write dropped, as
        # ``accept`` does.
        if (last["kind"] != "write" or last["seq"] != number - 1
                or last.get("stream") != fields.get("stream")
                or last.get("th", 0) != threads.get(get_ident())):
            return False
        if intact(hook_code_id):
            last["seq"] = number
            last["count"] = last.get("count", 1) + 1
        return True

    def direct_sender(kind: str) -> Any:
        # The frame that called send (``me.f_back``: the helper's own call does not change
        # it), if it runs a hook code registered as a direct sender of ``kind`` whose
        # cells and globals are intact; otherwise None, with the tampering recorded.
        sender = me.f_back
        sender_id = None if sender is None else address(sender.f_code)
        kinds = direct.get(sender_id)
        if kinds is None or kind not in kinds:
            tampered.append(NEVER_SENDS if kinds is not None else NOT_A_HOOK)
            return None
        return sender if intact(sender_id) else None

    def learner_site(frame: Any, depth: int = 1) -> tuple[str, int] | None:
        # The innermost frame that runs learner code, as (file, line), from ``frame``'s
        # ``depth - 1``-th caller out (a hook's ``sys._getframe(depth)``, without its
        # audited events). Exact str filenames only: ``in``/``==`` on anything else could
        # run a learner's __eq__ or __hash__ here. The frames are let go when this returns.
        # timeit's ``<timeit-src>`` is not the learner's file: its line is the one that
        # called timeit, further out.
        for _ in range(depth - 1):
            if frame is None:
                return None
            frame = frame.f_back
        while frame is not None:
            name = frame.f_code.co_filename
            if type(name) is str_type and name in safe_files:
                return (name, frame.f_lineno)
            frame = frame.f_back
        return None

    def take_pairs() -> None:
        # The learner's subtractions of clock reads since the call began, from the list
        # the hooks append to without a send (instrument.PAIRS). Learner code can reach
        # that list: an entry is kept only if both operands are reads this core made,
        # value for value (a learner holding those readings could subtract them anyway),
        # and once per pair of reads (an interval is its two reads). Exact types only,
        # so no learner method runs here; slicing and clearing an exact list run none.
        entries = pair_log[:]
        pair_log.clear()
        set_tail_aside()
        seen = set()
        for entry in entries:
            if type(entry) is not tuple_type or len(entry) != 4:
                tampered.append(NEVER_MADE)
                return
            start, stop, a, b = entry
            if (type(start) is not int_type or type(stop) is not int_type
                    or type(a) not in (int_type, float_type)
                    or type(b) not in (int_type, float_type)
                    or start not in reads or stop not in reads
                    or reads[start] != a or reads[stop] != b):
                tampered.append(NEVER_MADE)
                return
            if (start, stop) in seen:
                continue
            if (start in dropped_reads or stop in dropped_reads) and not put_back(start, stop):
                continue
            seen.add((start, stop))
            events.append({"start": start, "stop": stop, "seq": next(seq), "kind": "pair"})
        set_aside.clear()

    def set_tail_aside() -> None:
        for number, first, dropped in run_tail:
            set_aside[number] = (first, dropped)
        run_tail.clear()

    def put_back(start: int, stop: int) -> bool:
        # A subtraction of a dropped read from a read made before that read's run began
        # (a sample's start, before its call): put the dropped read back in the log, in
        # its place by number, when it was set aside. Subtractions inside the run (a
        # busy-wait's `perf_counter() - begun`) bring nothing back; a pair naming a read
        # the log does not hold goes.
        if start in dropped_reads or stop not in set_aside:
            return False
        first, dropped = set_aside[stop]
        if start >= first:
            return False
        del set_aside[stop]
        at = bisect_right(events, stop, key=seq_of)  # the log is in number order
        events[at:at] = dropped
        dropped_reads.discard(stop)
        return True

    def thin_log() -> None:
        # A log over LOG_THIN_AT events keeps its head and tail whole and, between them,
        # only the kinds outside THINNED_KINDS; then every event that names a dropped
        # one goes too (a return or a call whose partner went, a readiness whose read or
        # call went, a pair whose read went), so the log names only events it holds.
        nonlocal events
        if len(events) <= LOG_THIN_AT:
            return
        pairs = [e for e in events if e["kind"] == "pair"]
        log = [e for e in events if e["kind"] != "pair"]
        low, high = LOG_HEAD, len(log) - LOG_TAIL
        # A short interval (a sample: a few events) is kept whole wherever it lies, with
        # the events just before it (its loop's previous turn).
        where = {e["seq"]: index for index, e in enumerate(log)}
        near: set[int] = set()
        for pair in pairs:
            start, stop = where.get(pair["start"]), where.get(pair["stop"])
            if start is not None and stop is not None and 0 <= stop - start <= LOG_SHORT:
                near.update(range(max(0, start - LOG_SHORT), stop + 1))
        kept = [e for index, e in enumerate(log)
                if index < low or index >= high or index in near
                or e["kind"] not in THINNED_KINDS]
        held = {e["seq"] for e in kept}
        returned = {e["call"]: e["seq"] for e in log if e["kind"] == "return"}
        gone = {call for call, seq in returned.items() if call not in held or seq not in held}
        held -= gone
        kept = [e for e in kept if e["seq"] in held and not (
            e["kind"] == "return" and e["call"] in gone) and not (
            e["kind"] == "ready" and (e["read"] not in held or e["call"] not in held))]
        held = {e["seq"] for e in kept}
        events = kept + [e for e in pairs if e["start"] in held and e["stop"] in held]

    def number_compiles() -> None:
        # Compilations inside a call wait for the call's record (CALL): they are numbered
        # after it, or before whatever event comes next if that record never does.
        for fields in pending_compiles:
            fields["seq"] = next(seq)
            events.append(fields)
        pending_compiles.clear()

    def token(array: Any) -> int:
        key_ = address(array)
        entry = tokens.get(key_)
        if entry is not None and entry[0]() is array:
            return entry[1]
        new = next(next_token)
        # Not contextlib.suppress: that is Python code a learner could replace, and it
        # would run inside this frame.
        try:  # noqa: SIM105
            tokens[key_] = (ref(array), new)
        except TypeError:  # not weak-referenceable: the token is still unique
            pass
        return new

    # The rare operations, one handler each (closures: they see the sealed locals; a
    # local the hot path reads is not rebound here but returned, so it stays a fast
    # local of the loop). Each returns the reply; a refusal records the tampering.

    def on_cancel(message: Any) -> None:
        # (CANCEL, the number of a wait): a wait hook records its wait before waiting
        # (the learner's next dispatch then follows the wait as closely as it would
        # uninstrumented) and withdraws it if the wait raised (it waited for nothing).
        # Only a wait hook's code may withdraw, and only a wait: withdrawing one hides a
        # wait, as calling the hook's original directly always could (docs/security.md,
        # "Hiding events").
        target = message[1]
        if type(target) is not int_type:
            raise TypeError("cancel")
        if direct_sender("wait") is None:
            return
        for position in range(len(events) - 1, -1, -1):
            fields = events[position]
            if fields["seq"] == target:
                if fields["kind"] == "wait":
                    del events[position]
                break
            if fields["seq"] < target:
                break

    def on_compile(fields: Any) -> int | None:
        # (COMPILE, fields, learner files), while recording (the loop has taken the
        # files): a compilation, reported by jax's listener while the code that compiles
        # runs. One inside a jitted call (a call hook's code is on the stack) is numbered
        # once the call's own record has been (CALL), so it falls between the call and
        # its return. Rare: the stack walk's audited reads cost nothing that matters.
        if type(fields) is not dict_type:
            raise TypeError("fields")
        sender = direct_sender("compile")
        if sender is None:
            return None
        site = None
        inside_call = False
        frame = sender.f_back
        while frame is not None:
            code = frame.f_code
            if address(code) in call_ids:
                inside_call = True
                break
            name = code.co_filename
            if site is None and type(name) is str_type and name in safe_files:
                site = (name, frame.f_lineno)
            frame = frame.f_back
        if inside_call and site is None:
            # The call's site is the learner's line that made it: the same line.
            site = learner_site(frame)
        fields["site"] = site
        fields["kind"] = "compile"
        if inside_call:
            pending_compiles.append(fields)
            return None
        if pending_compiles:
            number_compiles()
        fields["seq"] = number = next(seq)
        events.append(fields)
        return number

    def on_register(message: Any) -> tuple[Any, ...] | None:
        # (REGISTER, {hook code: event kinds it sends}, pairs, readings, files, hook
        # globals): from ``install``, once, on the main thread and before PROTECT, when no
        # learner code exists yet (learner code runs only after the hooks are protected
        # and the guard is armed). Any later attempt is tampering. Returns the clock
        # hooks' (reading types, timer files, hook globals) for the loop to bind.
        nonlocal registered, pair_log, mark_log, thread_log
        if registered or protected_once or get_ident() != main_thread:
            tampered.append("recorder: hook senders were registered after the "
                            "hooks were installed")
            return None
        registered = True
        if type(message[2]) is list_type:
            pair_log = message[2]
        if len(message) > 6 and type(message[6]) is list_type:
            mark_log = message[6]
        if len(message) > 7 and type(message[7]) is list_type:
            thread_log = message[7]
        readings = {clock: kind for clock, kind in dict_type.items(message[3])
                    if clock in clocks and type(kind) is type}
        files = exact_strs(message[4])
        globals_ = message[5] if type(message[5]) is dict_type else None
        for code, kinds in dict_type.items(message[1]):
            direct[address(code)] = frozenset_type(
                [k for k in kinds if type(k) is str_type])
            direct_codes.append(code)
        return readings, files, globals_

    def on_designate(message: Any) -> dict[int, tuple[Any, int]]:
        # (DESIGNATE, [callables]): the loop binds the new table.
        if type(message[1]) is not list_type:
            raise TypeError("designate")
        table = {}
        for number, callable_ in enumerate(message[1], 1):
            # Held until the next DESIGNATE, so an address is never reused.
            table[address(callable_)] = (callable_, number)
        return table

    def on_reset() -> None:
        # The loop also forgets the latest call and its outputs.
        nonlocal events
        events = []
        pending_compiles.clear()
        pair_log.clear()
        mark_log.clear()

    def on_send(message: Any) -> None:
        # (SEND, frame, learner JSON or None): write one frame, in the protocol's order
        # (syncgrade.protocol.next_frames: hello, load, the job's calls in order, end; a
        # load that failed skips the calls, which the parent checks against the load
        # frame). Anything else is tampering.
        nonlocal ended, frames_sent
        frame = clean(message[1])
        kind = frame.get("type") if type(frame) is dict_type else None
        ident = frame.get("id") if kind == call_kind else None
        if (kind, ident) not in next_frames(frames_sent, expected, None, ended):
            tampered.append(f"channel: a {kind} frame was sent out of order")
            return
        ended = kind == end_kind
        if kind == call_kind:
            if pending_compiles:
                number_compiles()
            take_pairs()
            take_marks()
            thin_log()
            frame["events"] = clean(events)
        if kind in (load_kind, end_kind) and tampered:
            frame["tampered"] = [*frame.get("tampered", []), *tampered]
        learner = message[2]
        if type(learner) is str_type:
            frame["learner"] = learner
        frames_sent += 1
        frame["seq"] = frames_sent
        body = "".join(encode(frame, 0)).encode()
        payload = digest(key, body, mac_algorithm).hex().encode() + body
        data = pack(len(payload)) + payload
        while data:
            data = data[write(channel_fd, data):]

    def on_protect(message: Any) -> None:
        # (PROTECT, hook codes, more control codes, emit codes, {hook code: (cells,
        # globals entries, builtins entries)}): what the hooks captured, to compare on
        # every accepted event (``intact``).
        nonlocal protected_once, control_codes, hook_ids, emit_ids, call_ids, \
            control_ids, checks
        hook_codes, more_control, emit_codes, protected = message[1:]
        protected_once = True
        control_codes = control_codes | more_control
        hook_ids = {address(code): code for code in hook_codes}
        emit_ids = {address(code): code for code in emit_codes}
        call_ids = frozenset_type(code_id for code_id, kinds in direct.items()
                                  if "call" in kinds and code_id in hook_ids)
        control_ids = {address(code): code for code in control_codes}
        checks = {}
        for code, (cells, entries, builtin_entries) in dict_type.items(protected):
            # A cell listed twice (a hook installed under two names) is checked once;
            # order kept.
            unique = tuple({address(cell): cell for cell in cells}.values())
            groups: dict[int, tuple[Any, list[str]]] = {}
            for namespace, name in entries:
                groups.setdefault(address(namespace), (namespace, []))[1].append(name)
            shadows: dict[int, list[str]] = {}
            for namespace, name in builtin_entries:
                groups.setdefault(address(namespace), (namespace, []))
                shadows.setdefault(address(namespace), []).append(name)
            # The first name once more at the end: an itemgetter of one name returns the
            # value itself, of two or more a tuple (no names: no getter, the dict is only
            # checked for shadowed builtins).
            namespaces = tuple(
                (itemgetter(*names, names[0]) if names else None, namespace,
                 tuple(namespace[name] for name in (*names, *names[:1])),
                 sizeof(namespace), tuple(shadows.get(address(namespace), ())))
                for namespace, names in groups.values())
            # The entry holds the code, so its address stays its own.
            checks[address(code)] = (code, unique, tuple(map(get_cell, unique)),
                                      namespaces)

    def on_status() -> tuple[int, tuple[str, ...]]:
        return (frames_sent, tuple(tampered))

    def on_note(message: Any) -> None:
        tampered.append(str_type.__str__(message[1]))

    reply: Any = None
    sender: Any = None
    hook: Any = None
    caller: Any = None
    frame: Any = None
    while True:
        # Hold no frame past the send: ``caller`` and ``frame`` can be the learner's, and
        # a frame held here would keep its locals (arrays) alive longer than the learner's
        # code does, and be copied out of the interpreter's stack when it returns. Nor
        # the learner's arrays: the last message and a call's outputs would otherwise
        # stay alive until the next send of the same kind, across the learner's next call
        # (which then cannot reuse their memory: page faults in the timed interval that
        # uninstrumented code never pays). Readiness is asked in ``all_ready``, whose
        # loop variable goes with its frame.
        sender = hook = caller = frame = message = outputs = fields = None
        inputs = callee = statics = entry = began = None
        try:
            message = yield reply
        except GeneratorExit:
            return
        except BaseException:  # a learner's gen.throw(): never let it out
            tampered.append("recorder: an exception was thrown into the event log")
            reply = None
            continue
        reply = None
        try:
            # Exact types first: a learner object here could run its own methods inside
            # this frame, where f_back would lead to the key.
            if type(message) is not tuple_type or not message or type(message[0]) is not int:
                tampered.append("recorder: a malformed request was sent")
                continue
            op = message[0]
            if op == TIMER:
                # (TIMER, clock): a clock read. The installed ``time.perf_counter`` and its
                # five siblings only send this message (instrument._clock_hook): nothing
                # in it comes from the reader but the clock's name, and the core reads
                # the clock itself. While recording, a read by learner
                # code (its caller's file is the learner's) gets a number, a "timer" event
                # with the value and the caller's line, a "ready" event for that read, and
                # is returned as a Reading carrying its number; any other read is
                # returned as the plain value. Anyone may send this: it is a clock read,
                # exactly what calling the clock is. The work after the clock read is
                # kept to a minimum: a start read's is inside the learner's interval.
                clock = message[1]
                # An exact str before the lookup: a str subclass's __eq__ would run here.
                read_clock = clocks.get(clock) if type(clock) is str_type else None
                if read_clock is None:
                    raise TypeError("timer")
                if not enabled:
                    reply = read_clock()
                    continue
                # The reader: the clock hook's caller (the hook is the frame whose globals
                # are the hooks' module: f_globals and f_back are not audited), or whoever
                # sent this directly. One audited f_code read: the reader's.
                caller = me.f_back
                if caller is not None and caller.f_globals is hook_globals:
                    caller = caller.f_back
                name = None if caller is None else caller.f_code.co_filename
                if type(name) is not str_type or name not in timer_files:
                    # timeit's inner loop (``<timeit-src>``) reads for the learner's line
                    # that called timeit: the next learner frame outwards (no learner
                    # frame: not the learner's read).
                    site = None
                    frame = caller.f_back if name == "<timeit-src>" else None
                    while frame is not None:
                        name = frame.f_code.co_filename
                        if type(name) is str_type and name in timer_files:
                            site = (name, frame.f_lineno)
                            break
                        frame = frame.f_back
                    if site is None:
                        reply = read_clock()  # jax and the stdlib read clocks too
                        continue
                else:
                    site = (name, caller.f_lineno)
                if pending_compiles:
                    number_compiles()
                # The latest call's outputs, once ready, are let go of before the CPU
                # stamp (ready before the read is ready at it). Held here, an output the
                # learner dropped (a warm-up's `fn(x).block_until_ready()`) was freed
                # after a start read's stamp, inside the learner's first interval: freeing
                # a multi-MB output can hand its memory back to the OS, 0.5-1.2 ms of CPU
                # time (exercise-3's 8 MB output, docs/performance.md "Unexplained host
                # time") that uninstrumented code spends where the learner dropped it.
                ready = all_ready(latest_outputs)
                if ready:
                    # Ready stays ready (a deleted array is skipped): every later check
                    # until the next call says True with or without these arrays, so let
                    # them go. Held, the learner's finished outputs would outlive their
                    # last use by a whole iteration, and the next call could not reuse
                    # their memory (a fresh multi-MB buffer costs page faults in the
                    # learner's timed interval, which uninstrumented code does not pay).
                    latest_outputs = []
                # The CPU stamp before the clock: a start read's is outside the interval.
                fields = {"seq": 0, "kind": "timer", "clock": clock, "value": 0,
                          "site": site}
                if usage is not None:
                    fields["vcs"] = usage(usage_thread).ru_nvcsw
                if counting_threads or thread_log:
                    fields["others"] = others_cpu(get_ident())
                    fields["others_born"] = born_count
                    fields["others_ended"] = ended_count
                stamp(fields, True)
                value = read_clock()
                fields["seq"] = number = next(seq)
                fields["value"] = value
                reply = reading_types[clock](value)
                reply.seq = number
                reads[number] = value
                read_of = (fields.get("th", 0), clock)
                if (run_count and read_of == run_key and number == run_next
                        and len(events) == run_length):
                    run_count += 1
                    if run_count > READ_RUN_KEPT:  # the latest read is inside the run
                        run_tail.append((run_read, run_first, events[run_index:]))
                        if len(run_tail) > READ_RUN_TAIL:
                            del run_tail[0]
                        del events[run_index:]
                        dropped_reads.add(run_read)
                else:
                    set_tail_aside()
                    run_key, run_count, run_first = read_of, 1, number
                run_read, run_index = number, len(events)
                events.append(fields)
                run_next, run_length = number + 1, len(events)
                if latest_call is None:
                    continue
                if not ready:  # not before the read: maybe at it
                    ready = all_ready(latest_outputs)
                    if ready:
                        latest_outputs = []
                ready_seq = next(seq)
                events.append({"seq": ready_seq, "kind": "ready", "read": number,
                               "call": latest_call, "ready": ready})
                run_next, run_length = ready_seq + 1, len(events)
            elif op == CALL:
                # (CALL, name, inputs, NumPy argument count, outputs or None if the call
                # raised, depth, learner files, callee, statics, CPU time before the
                # dispatch, jit disabled: True when jax_disable_jit was on, the jit's
                # options or None, donated inputs or None, the blocked clock before the
                # dispatch or None): one jitted call, sent once, after it
                # returned (the proxy does nothing before dispatching, so a learner's
                # back-to-back calls keep jax's dispatch thread busy as they would
                # uninstrumented). Records "call" and, for a call that returned, "return"
                # with the outputs later readiness checks look at; compilations reported
                # during the call are numbered between the two.
                if not enabled:
                    continue
                what, inputs, numpy_args, outputs, depth, files, callee, statics = message[1:9]
                # The CPU time the hook read before dispatching (no later than now).
                began = message[9] if len(message) > 9 else None
                if type(depth) is not int_type or (outputs is not None
                                                   and type(outputs) is not list_type) or (
                        statics is not None and type(statics) is not list_type):
                    raise TypeError("call")
                if files is not files_seen:
                    files_seen, safe_files = files, exact_strs(files)
                sender = direct_sender("call")
                if sender is None:
                    continue
                entry = designated.get(address(callee))
                fields = {"name": what, "site": learner_site(sender, depth),
                          "inputs": tokens_of(inputs),
                          "numpy_args": numpy_args, "seq": next(seq), "kind": "call",
                          "fn": entry[1] if entry is not None and entry[0] is callee else 0}
                if statics is not None:
                    fields["static"] = statics
                returned: Event = {"call": 0, "outputs": [], "seq": 0, "kind": "return"}
                ended_at = stamp(returned, True)
                fields["cpu"] = began if type(began) is int_type and 0 <= began <= ended_at \
                    else ended_at
                # The blocked clock before the dispatch (the hook's; none: no span),
                # never after the return's (the clock jitters by a few µs).
                began = message[13] if len(message) > 13 else None
                if type(began) is int_type and "blk" in returned:
                    fields["blk"] = min(began, returned["blk"])
                if "th" in returned:
                    fields["th"] = returned["th"]
                if len(message) > 10 and message[10] is True:  # run with jit disabled
                    fields["jit_disabled"] = True
                # The jit's options (exact built-ins only, through ``clean``) and, for a
                # donating jit, one flag per input: consumed by the call.
                if len(message) > 11 and type(message[11]) is dict_type:
                    fields["jit"] = clean(message[11])
                if len(message) > 12 and type(message[12]) is list_type:
                    fields["donated"] = [item is True for item in message[12]]
                events.append(fields)
                reply = number = fields["seq"]
                if pending_compiles:
                    number_compiles()
                if outputs is not None:
                    returned["call"] = number
                    returned["outputs"] = tokens_of(outputs)
                    returned["seq"] = next(seq)
                    events.append(returned)
                    latest_call = number
                    latest_outputs = [a for a in outputs if type(a) is array_type]
            elif op == SITED:
                # (SITED, kind, fields, arrays field or None, depth, learner files): while
                # recording, an EMIT whose fields["site"] the core fills in: the innermost
                # learner frame from the hook's caller ``depth - 1`` frames out (the
                # hook's own ``sys._getframe(depth)``, without its audited events).
                # Not recording: reply None and use no number (the hook's old ENABLED
                # test, fused).
                if not enabled:
                    continue
                if pending_compiles:
                    number_compiles()
                what, fields, name, depth, files = message[1:6]
                number = next(seq)
                reply = number
                if type(fields) is not dict_type or type(depth) is not int_type:
                    raise TypeError("fields")
                if name is not None:
                    if type(name) is not str_type:
                        raise TypeError("field name")
                    fields[name] = tokens_of(fields[name])
                if files is not files_seen:
                    files_seen, safe_files = files, exact_strs(files)
                sender = me.f_back
                sender_id = None if sender is None else address(sender.f_code)
                kinds = direct.get(sender_id)
                if kinds is None or type(what) is not str_type or what not in kinds:
                    tampered.append(NEVER_SENDS if kinds is not None else NOT_A_HOOK)
                    continue
                if what == "write" and events and coalesced(events[-1], fields, number,
                                                            sender_id):
                    continue
                if sender_id in hook_ids:  # otherwise accept refuses it
                    fields["site"] = learner_site(sender, depth)
                # An operation recorded after it ran says when it began (``cpu0``, and
                # ``blk0`` on the blocked clock, read by its hook): each kept only if an
                # exact int no later than now.
                ended_at = stamp(fields, what in blocking_kinds)
                began = fields.get("cpu0")
                if began is not None and (type(began) is not int_type or began > ended_at):
                    del fields["cpu0"]
                began = fields.get("blk0")
                if began is not None:
                    if type(began) is not int_type or "blk" not in fields:
                        del fields["blk0"]
                    else:  # never after its end (the clock jitters by a few µs)
                        fields["blk0"] = min(began, fields["blk"])
                # A wait recorded before it waited, on the latest call's outputs while
                # they still ran (``pending``): the learner's code between that call's
                # return and this wait overlapped the device's work.
                if what == "wait" and "cpu0" not in fields and latest_outputs \
                        and not all_ready(latest_outputs):
                    fields["pending"] = True
                accept(what, fields, number, sender_id)
            elif op == CANCEL:
                on_cancel(message)
            elif op == COMPILE:
                if not enabled:
                    continue
                if message[2] is not files_seen:
                    files_seen, safe_files = message[2], exact_strs(message[2])
                reply = on_compile(message[1])
            elif op == EMIT:
                what, fields = message[1], message[2]
                if pending_compiles and enabled:
                    number_compiles()
                number = next(seq)
                reply = number
                if not enabled:
                    continue
                if type(fields) is not dict_type:
                    raise TypeError("fields")
                # f_back is not audited, f_code is (every audited event costs a call of
                # the guard's hook): one read for a hook that sends itself, two for a
                # Recorder method and the hook that called it.
                sender = me.f_back
                sender_id = None if sender is None else address(sender.f_code)
                kinds = direct.get(sender_id)
                if kinds is not None:
                    if type(what) is str_type and what in kinds:
                        accept(what, fields, number, sender_id)
                    else:
                        tampered.append(NEVER_SENDS)
                elif sender_id in emit_ids:
                    hook = sender.f_back
                    accept(what, fields, number, None if hook is None else address(hook.f_code))
                else:
                    tampered.append(NOT_A_HOOK)
            elif op == TOKEN:
                reply = token(message[1])
            elif op == ENABLED:
                reply = enabled
            elif op == REGISTER:
                registration = on_register(message)
                if registration is not None:
                    reading_types, timer_files, hook_globals = registration
            elif get_ident() != main_thread or address(me.f_back.f_code) not in control_ids:
                tampered.append("recorder: a grader control step was called from "
                                "learner code")
            elif op == SET:
                enabled = message[1] is True
            elif op == DESIGNATE:
                designated = on_designate(message)
            elif op == RESET:
                on_reset()
                latest_outputs = []
                latest_call = None
                run_count = 0
                run_tail.clear()
            elif op == SEND:
                on_send(message)
            elif op == PROTECT:
                on_protect(message)
            elif op == STATUS:
                reply = on_status()
            elif op == NOTE:
                on_note(message)
        except Exception as exc:  # a malformed message: refuse, never raise
            tampered.append(f"recorder: malformed request ({type(exc).__name__})")


class Recorder:
    """The hooks' view of the sealed core: sends facts, holds nothing worth changing.

    ``learner_files``: the files whose frames are the learner's. The clock reads that count
    are decided by the files this held at :meth:`register`; the hooks send the current
    ones with their events, for the events' sites (a learner who removes their own file
    only hides their own lines).
    """

    __slots__ = ("_lock", "_send", "learner_files")

    def __init__(self, core: Generator[Any, Any, None], learner_files: Iterable[str]) -> None:
        self._send = core.send
        self.learner_files = frozenset(learner_files)
        # Every send to the core holds this lock: the hooks, these methods and the
        # grader's control steps, each with its own ``with lock:`` around its own
        # ``send`` (the core identifies a sender by the frame that called ``send``). The
        # core is a generator: a send while another thread is inside it (a learner thread
        # preempted mid-step) raises "generator already executing", which crashed the
        # grader's own control step when a correct submission read clocks on a
        # background thread. Waiting on the lock releases the GIL, so the thread inside
        # finishes its step. Reentrant: a learner's signal handler runs on the main
        # thread, possibly while a control step holds the lock.
        self._lock = _thread.RLock()

    @property
    def enabled(self) -> bool:
        with self._lock:
            return bool(self._send((ENABLED,)))

    def emit(self, kind: str, **fields: Any) -> int:
        """Append one event (if recording is on) and return its sequence number."""
        with self._lock:
            return int(self._send((EMIT, kind, fields)))

    def token(self, array: Any) -> int:
        """A stable token for a live array object (``id()`` alone can be reused)."""
        with self._lock:
            return int(self._send((TOKEN, array)))

    def register(self, senders: dict[Any, frozenset[str]], pairs: list[Any],
                 readings: dict[str, type], hook_globals: dict[str, Any],
                 marks: list[Any] | None = None, threads: list[Any] | None = None
                 ) -> None:
        """Name the hook codes that send to the core themselves (``self._send((TIMER,
        ...))`` and the like, without a method of this class in between) and the event
        kinds each one's code sends; the core then accepts those kinds from a frame
        running that code, and nothing else from it. Accepted once, from the main
        thread, before ``PROTECT`` (when no learner code exists yet); later it is
        tampering. ``pairs`` is the list the hooks append the learner's subtractions of
        clock reads to (``(start seq, stop seq, start value, stop value)``); the core takes
        and checks its entries when it writes a call's frame. ``readings``: the Reading
        type of each clock's recorded reads (see the core's TIMER); the learner files whose
        clock reads count are this recorder's, as they are now. ``hook_globals``: the
        globals of the clock hooks' module (a clock read sent from a frame with these
        globals is the hook's: the reader is that frame's caller). ``marks``: the list the
        hooks append end marks to (``(wait seq, CPU ns at its end)``; ``(-1, GC start CPU
        ns, GC end CPU ns, thread ident)``), taken and checked with the pairs.
        ``threads``: the list the learner's threads append their births and ends to
        (``(ident, CPU clock id or None, -1)``; ``(ident, CPU clock id or None, CPU ns
        spent)``), read at each learner clock read once a learner thread has begun."""
        with self._lock:
            self._send((REGISTER, senders, pairs, readings, self.learner_files,
                        hook_globals, marks, threads))


def new_core(key: bytes, channel_fd: int, call_ids: Iterable[str], main_thread: int,
             control_codes: frozenset[Any], is_ready: Any, is_deleted: Any,
             array_type: type) -> Generator[Any, Any, None]:
    """Start a sealed core (primed, ready for ``send``). Control operations are accepted
    from the main thread (``main_thread``) and from ``control_codes`` only; ``PROTECT``
    may add more codes."""
    sealed = types.FunctionType(_core.__code__, private_globals(), _core.__name__)
    core = sealed(key, channel_fd, tuple(call_ids), main_thread, control_codes, is_ready,
                  is_deleted, array_type)
    next(core)
    return core


def private_globals() -> dict[str, Any]:
    """A copy of this module's globals whose ``__builtins__`` is a copy of the builtins,
    for the core (and the functions it defines) to look names up in.

    Learner code can reach this module's dict and the builtins' (any grader function's
    ``__globals__``, ``import builtins``) and put a str-subclass key there that hashes like
    a name the core uses: looking that name up would call the key's ``__eq__`` with the
    core's frame below it, and ``f_back`` would lead to the channel key. The copies are
    made before any learner code runs and are reachable only through the core's own
    frame, which the guard seals; a later change to either original does not reach the
    core either."""
    namespace = dict(globals())
    namespace["__builtins__"] = dict(vars(builtins))
    # The protocol's frame order, for the core's SEND: a copy of protocol.next_frames
    # whose globals are its own (protocol's module dict is the learner's to change).
    order_globals = {name: getattr(protocol, name) for name in protocol.NEXT_FRAMES_GLOBALS}
    order_globals["__builtins__"] = {"len": builtins.len}
    namespace["_NEXT_FRAMES"] = types.FunctionType(
        protocol.next_frames.__code__, order_globals, "next_frames")
    return namespace


EMIT_CODES = frozenset({Recorder.emit.__code__})
