"""Hooks that let the grader see what a learner's timed interval contained.

``install(recorder)`` must run after ``import jax`` (jax.numpy re-registers array methods
at import) and before the submission is imported (a learner's ``from time import
perf_counter`` keeps whatever is there at that moment). It returns an ``Installation``
whose ``tampered()`` lists hooks that are no longer in place and whose ``undo()`` restores
the originals. Facts behind each hook: shared/research/jax-instrumentation.md.

Where the hooks do their work matters as much as how much they do (docs/performance.md,
"Overhead"): anything between one of the learner's calls finishing and the next dispatch
lets jax's CPU dispatch thread fall asleep, and waking it lands inside the learner's next
interval. So a clock hook only sends a clock-read message (the core does the rest), a
jitted call is recorded after its dispatch, a wait before it waits (withdrawn if it
raises), and a subtraction of two readings is only appended to a list. Every send holds
the recorder's lock (``Recorder._lock``): learner threads may call hooks concurrently.
"""

from __future__ import annotations

import _thread
import collections
import copyreg
import ctypes
import datetime as _datetime_module
import enum
import functools
import gc
import inspect
import sys
import threading
import time
import timeit
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import monitoring

from syncgrade.child.jax_private import jax_callback, stages, xc
from syncgrade.child.jax_private import jax_config as _jax_config
from syncgrade.child.recorder import BLOCKED as _blocked_ns

# The core's operation codes under names the recorder module does not have: the core
# re-checks, on every event, each global a hook uses in every grader module dict that
# has that name, so a name shared with the recorder's dict would add a lookup there.
from syncgrade.child.recorder import CALL as _OP_CALL
from syncgrade.child.recorder import CANCEL as _OP_CANCEL
from syncgrade.child.recorder import CLOCKS as _CLOCKS
from syncgrade.child.recorder import COMPILE as _OP_COMPILE
from syncgrade.child.recorder import DATETIME_CLOCKS as _DATETIME_CLOCKS
from syncgrade.child.recorder import ID_CLOCKS as _ID_CLOCKS
from syncgrade.child.recorder import SITED as _OP_SITED
from syncgrade.child.recorder import TIMER as _OP_TIMER
from syncgrade.child.recorder import Recorder
from syncgrade.protocol import JAX_OWN_CONVERSION

ArrayImpl: Any = xc.ArrayImpl
# The original method, before any learner code could replace it.
_IS_DELETED: Callable[[Any], bool] = xc.ArrayImpl.__dict__["is_deleted"]
# The learner thread's CPU clock, as it was when this module was imported (before the
# timer hooks replace ``time.thread_time_ns``): the hooks mark when an operation began or
# ended with it (docs/checks.md, "interval-clean").
_thread_time_ns = time.thread_time_ns
_get_ident = _thread.get_ident
# A thread's own CPU clock, readable from any thread while it lives (None where the
# platform has none: the learner's threads' CPU time is then read only as they end).
_CPU_CLOCK_ID: Callable[[int], int] | None = getattr(time, "pthread_getcpuclockid", None)
HOST_CONVERSIONS = ("asarray", "array", "asanyarray")
POLL_GAP_NS = 100_000
"""The most CPU time (ns) from one ``is_ready()`` poll's end to the next poll's start that
is part of a poll loop's wait: a bare loop polls again within 40 µs (measured beside a
loaded machine's noise); a longer gap is work in the loop's body (or a GC pause, which is
credited as one), left out of the wait."""
MAX_POLL_HOLES = 32
"""The most gaps one poll run records; a run with more starts again at its latest poll."""
COMPILE_EVENTS = (
    "/jax/core/compile/jaxpr_trace_duration",
    "/jax/core/compile/jaxpr_to_mlir_module_duration",
    "/jax/core/compile/backend_compile_duration",
)


@dataclass
class Installation:
    """The installed hooks: (owner, attribute, original, hook) for each patched name."""

    patches: list[tuple[Any, str, Any, Any]] = field(default_factory=list)
    defaults: list[tuple[Any, tuple[Any, ...]]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    listeners: list[Any] = field(default_factory=list)
    restores: list[Callable[[], Any]] = field(default_factory=list)
    """Undo steps for changes that are not attribute patches (the buffer slot)."""
    senders: dict[Any, frozenset[str]] = field(default_factory=dict)
    """Hook code -> the event kinds it sends to the core itself (Recorder.register)."""

    def sends(self, hook: Any, *kinds: str) -> None:
        """``hook``'s code sends events of ``kinds`` straight to the core."""
        self.senders[hook.__code__] = frozenset(kinds)

    def patch(self, owner: Any, name: str, hook: Any) -> None:
        original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        self.patches.append((owner, name, original, hook))
        # The label is made now: a learner can rename a module or class later.
        self.labels.append(f"{getattr(owner, '__name__', owner)}.{name}")
        setattr(owner, name, hook)

    def tampered(self) -> list[str]:
        """Names whose current value is no longer the grader's hook (identity checks
        only, so no learner-defined method runs)."""
        altered = []
        for (owner, name, _original, hook), label in zip(self.patches, self.labels, strict=True):
            if isinstance(owner, type):
                current = type.__dict__["__dict__"].__get__(owner).get(name)
            else:
                current = object.__getattribute__(owner, "__dict__").get(name)
            if current is not hook:
                altered.append(label)
        return altered

    def hooks(self) -> list[Any]:
        """The installed hook objects (for the recorder's integrity snapshot)."""
        return [*(hook for _owner, _name, _original, hook in self.patches), *self.listeners]

    def undo(self) -> None:
        for owner, name, original, _hook in reversed(self.patches):
            setattr(owner, name, original)
        for fn, defaults in self.defaults:
            fn.__defaults__ = defaults
        for restore in reversed(self.restores):
            restore()


# --------------------------------------------------------------------------- timers


class Reading(float):
    """A float clock reading that records which two readings were subtracted."""

    __slots__ = ("seq",)

    def __sub__(self, other: Any) -> Any:
        result = float.__sub__(self, other)
        if result is not NotImplemented:
            _record_pair(other, self)
        return result

    def __rsub__(self, other: Any) -> Any:
        return float.__rsub__(self, other)

    def __reduce__(self) -> Any:
        return (float, (float(self),))


class ReadingNs(int):
    """An integer nanosecond clock reading; same contract as :class:`Reading`."""

    def __sub__(self, other: Any) -> Any:
        result = int.__sub__(self, other)
        if result is not NotImplemented:
            _record_pair(other, self)
        return result

    def __rsub__(self, other: Any) -> Any:
        return int.__rsub__(self, other)

    def __reduce__(self) -> Any:
        return (int, (int(self),))


# The learner's subtractions of clock reads: (start read, stop read, start value, stop
# value), appended without a send (a subtraction sits between the learner's previous
# call and the next, where any work lets jax's dispatch thread fall asleep). The core
# holds this list (Recorder.register) and takes its entries when it writes the call's
# frame, checking each one: learner code can reach the list, but an entry is accepted only
# for two reads the core made, value for value, which a learner holding those readings
# could subtract anyway; removing entries only hides the learner's own intervals. The
# grader's own timing reads it too, before the core takes it (``reference``: the
# learner's timed windows; a forged entry is tampering when the core checks it).
PAIRS: list[Any] = []


def _record_pair(start: Any, stop: Any) -> None:
    start_seq = getattr(start, "seq", None)
    if start_seq is not None:
        # The values let the recorder check that both operands are the reads they claim
        # to be (a hand-made ``Reading`` with a chosen ``seq`` is refused).
        PAIRS.append((start_seq, stop.seq, _plain(start), _plain(stop)))


def _plain(reading: Any) -> Any:
    return int.__int__(reading) if isinstance(reading, int) else float.__float__(reading)


def _clock_hook(recorder: Recorder, clock: str) -> Any:
    # The message, the core's send and the lock are all it holds. Run with a closure of a
    # learner's making, it can only send some clock-read message (a real read, or a
    # refused clock name) or not reach the core (hiding reads): nothing in a clock read
    # comes from the hook.
    message, send, lock = (_OP_TIMER, clock), recorder._send, recorder._lock

    def read() -> Any:
        with lock:
            return send(message)

    read.__name__ = read.__qualname__ = clock
    return read


def _clock_id_hook(recorder: Recorder, function: str) -> Any:
    # ``time.clock_gettime`` / ``clock_gettime_ns``: a read of one of the recorded clock
    # ids sends that clock's read message (the core reads the clock, with the id it bound
    # itself); any other id, or an id that is not an exact int, is the original's to read.
    original = getattr(time, function)
    messages = {clock_id: (_OP_TIMER, name) for name, _read, clock_id in _ID_CLOCKS
                if name.startswith(f"{function}(")}
    send, lock, int_type = recorder._send, recorder._lock, int

    def read(clk_id: Any, /) -> Any:
        message = messages.get(clk_id) if type(clk_id) is int_type else None
        if message is None:
            return original(clk_id)
        with lock:
            return send(message)

    read.__name__ = read.__qualname__ = function
    return read


# The C datetime types, as they were when this module was imported.
_DATETIME = _datetime_module.datetime
_TIMEDELTA = _datetime_module.timedelta
_EPOCH = _DATETIME(1970, 1, 1)
_EPOCH_UTC = _DATETIME(1970, 1, 1, tzinfo=_datetime_module.UTC)
_MICROSECOND = _TIMEDELTA(microseconds=1)


class _DateTimeType(type):
    """The metaclass of the installed ``datetime.datetime``: every datetime (one made by C
    code or before installation too) is still an instance of it."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, _DATETIME)

    def __subclasscheck__(cls, subclass: Any) -> bool:
        return issubclass(subclass, _DATETIME)


class DateTime(_DATETIME, metaclass=_DateTimeType):
    """``datetime.datetime`` while the hooks are installed (``from datetime import
    datetime`` in the submission gets it). ``now``, ``utcnow`` and ``today`` are clock
    reads (installed by :func:`_install_timers`, see :func:`_datetime_hooks`): the core
    reads the clock and the datetime is built from its reading, carrying the read's
    ``seq`` and (nanoseconds, utc) in ``_reading``. Subtracting two readings records the
    pair, as :meth:`Reading.__sub__` does. Everything else is the C type's."""

    __slots__ = ("_reading", "seq")
    # Placeholders for the installed hooks (the C type's own, unrecorded).
    now = _DATETIME.__dict__["now"]
    utcnow = _DATETIME.__dict__["utcnow"]
    today = _datetime_module.date.__dict__["today"]

    def __sub__(self, other: Any) -> Any:
        result = _DATETIME.__sub__(self, other)
        if type(result) is _TIMEDELTA:
            _record_datetime_pair(other, self)
        return result

    def __repr__(self) -> str:
        text = _DATETIME.__repr__(self)
        return f"datetime.{text}" if type(self) is DateTime else text


# Pickled and named as the ``datetime.datetime`` it stands in for (a pickle then loads as
# the C type wherever it is read).
DateTime.__module__ = "datetime"
DateTime.__name__ = DateTime.__qualname__ = "datetime"
_SEQ = DateTime.__dict__["seq"]
_READ = DateTime.__dict__["_reading"]


def _is_datetime_reading(value: Any) -> bool:
    # The real class hierarchy (the metaclass says every datetime is a DateTime).
    return type.__subclasscheck__(DateTime, type(value))


def _datetime_ns(reading: Any, utc: bool) -> int:
    """The system clock reading, in nanoseconds, that ``reading``'s fields stand for."""
    if reading.tzinfo is not None:
        delta = _DATETIME.__sub__(reading, _EPOCH_UTC)
    elif utc:
        delta = _DATETIME.__sub__(reading, _EPOCH)
    else:  # local time: whole seconds are exact as a float timestamp
        whole = _DATETIME.timestamp(_DATETIME.replace(reading, microsecond=0))
        return (int(whole) * 1_000_000 + reading.microsecond) * 1000
    return int(delta // _MICROSECOND) * 1000


def _record_datetime_pair(start: Any, stop: Any) -> None:
    # Recorded only for two readings whose fields are still the reads they were built
    # from (anything else is no pair: a datetime made by hand with a real read's ``seq``
    # records nothing). The core checks the values against its own reads again.
    if not (_is_datetime_reading(start) and _is_datetime_reading(stop)):
        return
    try:
        start_seq, stop_seq = _SEQ.__get__(start), _SEQ.__get__(stop)
        (start_ns, start_utc), (stop_ns, stop_utc) = _READ.__get__(start), _READ.__get__(stop)
        a, b = _datetime_ns(start, start_utc), _datetime_ns(stop, stop_utc)
    except Exception:  # not two readings (or fields no clock read gave)
        return
    if a == start_ns and b == stop_ns:
        PAIRS.append((start_seq, stop_seq, a, b))


def _datetime_reading(cls: Any, raw: Any, tz: Any, utc: bool) -> Any:
    """The datetime ``cls.now(tz)`` (``utcnow()`` if ``utc``) returns for the core's
    reading ``raw`` (integer nanoseconds, a :class:`ReadingNs` with its ``seq`` when
    recorded), built as CPython builds it from the system clock."""
    seq = getattr(raw, "seq", None)
    ns = int.__int__(raw)
    seconds, micro = divmod(ns // 1000, 1_000_000)
    if tz is None and not utc:
        result = cls.fromtimestamp(seconds).replace(microsecond=micro)
    else:
        result = cls(1970, 1, 1, tzinfo=tz) + _TIMEDELTA(seconds=seconds, microseconds=micro)
        if tz is not None:
            result = tz.fromutc(result)
    if seq is not None and _is_datetime_reading(result):
        _SEQ.__set__(result, seq)
        _READ.__set__(result, (ns, utc))
    return result


def _datetime_hooks(recorder: Recorder) -> dict[str, Any]:
    # ``datetime.now(tz)``, ``utcnow()`` and ``today()``: each sends its clock's read
    # message itself (the core takes the caller of a frame running this module's code as
    # the reader) and builds the datetime from the reading, after the core is left.
    send, lock = recorder._send, recorder._lock
    now_read, utcnow_read, today_read = ((_OP_TIMER, clock) for clock in _DATETIME_CLOCKS)

    def now(cls: Any, tz: Any = None) -> Any:
        with lock:
            raw = send(now_read)
        return _datetime_reading(cls, raw, tz, False)

    def utcnow(cls: Any) -> Any:
        with lock:
            raw = send(utcnow_read)
        return _datetime_reading(cls, raw, None, True)

    def today(cls: Any) -> Any:
        with lock:
            raw = send(today_read)
        return _datetime_reading(cls, raw, None, False)

    return {"now": now, "utcnow": utcnow, "today": today}


def _reduce_datetime(value: Any) -> Any:
    # A datetime of the C type (made before installation, or by C code) pickles under the
    # name ``datetime.datetime`` too, which is the installed class while it is installed.
    return (DateTime, _DATETIME.__reduce__(value)[1])


_TIME_CLOCKS = tuple(name for name, _read in _CLOCKS)
CLOCK_READINGS: dict[str, type] = {
    **{name: ReadingNs if name.endswith("_ns") else Reading for name in _TIME_CLOCKS},
    **{name: ReadingNs if name.startswith("clock_gettime_ns(") else Reading
       for name, _read, _id in _ID_CLOCKS},
    **{name: ReadingNs for name in _DATETIME_CLOCKS},
}


def _install_timers(inst: Installation, recorder: Recorder) -> None:
    # Each clock becomes a hook that only sends a clock-read message to the recorder core
    # (holding the recorder's lock): the core reads the clock itself and returns a
    # Reading (a learner's read, while recording) or the plain value; see the core's
    # TIMER. Nothing else runs between the learner's line and the core: clock reads sit
    # between one of the learner's calls and the next, where any work delays the next
    # dispatch (docs/performance.md, "Overhead").
    originals = {clock: getattr(time, clock) for clock in _TIME_CLOCKS}
    for clock in _TIME_CLOCKS:
        inst.patch(time, clock, _clock_hook(recorder, clock))
    for function in ("clock_gettime", "clock_gettime_ns"):
        if hasattr(time, function):
            inst.patch(time, function, _clock_id_hook(recorder, function))
    # datetime: the installed class, its clock reads, and pickling of the C type's own.
    inst.patch(_datetime_module, "datetime", DateTime)
    for name, hook in _datetime_hooks(recorder).items():
        inst.patch(DateTime, name, classmethod(hook))
    reducer = copyreg.dispatch_table.get(_DATETIME)
    copyreg.dispatch_table[_DATETIME] = _reduce_datetime
    inst.restores.append(lambda: copyreg.dispatch_table.pop(_DATETIME, None) if reducer is None
                         else copyreg.dispatch_table.__setitem__(_DATETIME, reducer))
    inst.patch(timeit, "default_timer", time.perf_counter)
    # timeit binds default_timer as a default argument at definition time.
    for fn in (timeit.timeit, timeit.repeat, timeit.Timer.__init__):
        defaults = fn.__defaults__ or ()
        inst.defaults.append((fn, defaults))
        fn.__defaults__ = tuple(
            time.perf_counter if d is originals["perf_counter"] else d for d in defaults
        )


# --------------------------------------------------------------------------- waits


def _array_leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, ArrayImpl):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, ArrayImpl):
                yield item


def _wait_hook(recorder: Recorder, how: str, original: Callable[..., Any]) -> Any:
    send, lock = recorder._send, recorder._lock

    def hooked(self: Any, *args: Any, **kwargs: Any) -> Any:
        # Recorded before the real wait, while the device still works: after it, the
        # recording would delay the learner's next dispatch, and jax's dispatch thread,
        # idle for longer than it is uninstrumented, would have to be woken inside the
        # learner's next interval. One send, straight to the core: the core tests that
        # recording is on, turns ``arrays`` into tokens and finds the learner's site
        # (``site`` keeps its place among the fields) from the hook's caller (depth 2).
        # The core's own readiness check at each clock read still tells a stop before
        # the work finished (another thread's read, during this wait) from one after.
        with lock:
            number = send((_OP_SITED, "wait", {"how": how, "arrays": [self], "site": None},
                           "arrays", 2, recorder.learner_files))
        try:
            result = original(self, *args, **kwargs)
        except BaseException:
            if number is not None:  # a wait that raised waited for nothing: withdrawn
                with lock:
                    send((_OP_CANCEL, number))
            raise
        if number is not None:  # its end, for CPU accounting: an append, no send
            _mark_end(number)
        return result

    return hooked


def _mark_end(number: int) -> None:
    """A recorded wait's end mark (an append, no send): the CPU time and, where readable,
    the blocked clock (``recorder.blocked_clock``) when it returned."""
    ended = _thread_time_ns()
    off = _blocked_ns(ended)
    _MARKS.append((number, ended) if off is None else (number, ended, off))


def _began(fields: dict[str, Any], blocked: int | None) -> dict[str, Any]:
    """``fields`` with ``blocked``, the blocked clock its hook read right after the CPU
    clock when the operation began (``blk0``; none where unreadable): an operation
    recorded after it ran says when it began on both clocks."""
    if blocked is not None:
        fields["blk0"] = blocked
    return fields


def _is_ready_hook(recorder: Recorder, original_is_ready: Callable[[Any], Any]) -> Any:
    send, lock = recorder._send, recorder._lock
    # A poll loop (``while not out.is_ready(): pass``) is a wait. The polls that find the
    # array not ready send nothing (a loop polls thousands of times): the run is kept
    # here, as (the array, weakly; the polling thread; the CPU time when its first poll
    # began; when its latest poll ended; the gaps between polls longer than POLL_GAP_NS).
    # The poll that finds the array ready is recorded as a wait from the run's first poll
    # (``cpu0``; a poll alone: from its own start, one ``is_ready()`` can take a quarter
    # of a millisecond) less those gaps (``holes``): the loop body's work, or a GC pause
    # (credited as one), is no part of the wait. A run ends where another array or thread
    # polls; past MAX_POLL_HOLES gaps it starts again at the latest poll.
    polling: list[Any] = [None, 0, 0, 0, [], None]

    def is_ready(self: Any) -> bool:
        began = _thread_time_ns()
        ref, thread, first, last, holes, blocked = polling
        same = ref is not None and ref() is self and thread == _get_ident()
        if not same:  # a new run: its first poll's start on the blocked clock too
            blocked = _blocked_ns(began)
        ready = bool(original_is_ready(self))
        if same and began - last > POLL_GAP_NS:
            if len(holes) < MAX_POLL_HOLES:
                holes.append([last, began])
            else:  # too many: the run starts again at this poll
                first, holes = began, []
                polling[2], polling[4] = first, holes
        if not ready:
            ended = _thread_time_ns()
            if same:
                polling[3] = ended
            else:
                try:
                    polling[:] = [weakref.ref(self), _get_ident(), began, ended, [],
                                  blocked]
                except TypeError:  # not weak-referenceable: no run kept
                    polling[0] = None
            return False
        polling[0] = None
        # A poll that saw completion (if recording), from the run's first poll.
        fields = {"how": "is_ready", "arrays": [self], "site": None,
                  "cpu0": first if same else began,
                  "holes": _poll_holes(holes, first, began) if same else []}
        _began(fields, blocked if type(blocked) is int else None)
        with lock:
            send((_OP_SITED, "wait", fields, "arrays", 2, recorder.learner_files))
        return ready

    return is_ready


def _poll_holes(holes: Any, first: int, last: int) -> list[list[int]]:
    """A poll run's gaps as exact ints inside ``[first, last]``: the list is reachable from
    learner code, and a malformed entry must not make the call's frame invalid."""
    try:
        return [[a, b] for a, b in holes
                if type(a) is int and type(b) is int and first <= a <= b <= last]
    except Exception:  # rewritten by the learner: no gaps claimed
        return []


def _install_waits(inst: Installation, recorder: Recorder) -> None:
    for name, how in (
        ("block_until_ready", "block_until_ready"),
        ("_single_device_array_to_np_array_did_copy", "host conversion"),
        ("item", "item"),
        ("tolist", "tolist"),
    ):
        hook = _wait_hook(recorder, how, ArrayImpl.__dict__[name])
        inst.patch(ArrayImpl, name, hook)
        inst.sends(hook, "wait")

    is_ready = _is_ready_hook(recorder, ArrayImpl.__dict__["is_ready"])
    inst.patch(ArrayImpl, "is_ready", is_ready)
    inst.sends(is_ready, "wait")

    original_batched = xc.batched_block_until_ready
    send, lock = recorder._send, recorder._lock

    def batched_block_until_ready(arrays: Any) -> Any:
        # Recorded before the wait and withdrawn if it raises, as ``_wait_hook`` does.
        arrays = list(arrays)  # read once: the same arrays are recorded and waited on
        with lock:
            number = send((_OP_SITED, "wait", {"how": "block_until_ready",
                                               "arrays": [a for a in arrays], "site": None},
                           "arrays", 2, recorder.learner_files))
        try:
            result = original_batched(arrays)
        except BaseException:
            if number is not None:
                with lock:
                    send((_OP_CANCEL, number))
            raise
        if number is not None:
            _mark_end(number)
        return result

    inst.patch(xc, "batched_block_until_ready", batched_block_until_ready)
    inst.sends(batched_block_until_ready, "wait")

    for name in HOST_CONVERSIONS:
        hook = _numpy_conversion_hook(recorder, name, getattr(np, name))
        inst.patch(np, name, hook)
        inst.sends(hook, "wait")


_GETFRAME = sys._getframe  # captured before any learner code can replace it


def _jax_caller(depth: int) -> bool:
    """Whether the frame ``depth`` levels above the caller of this function runs jax's own
    code (a module ``jax``, ``jax.*``, ``jaxlib`` or ``jaxlib.*``)."""
    module = str(_GETFRAME(depth + 1).f_globals.get("__name__", ""))
    return module.split(".", 1)[0] in ("jax", "jaxlib")


def _numpy_conversion_hook(recorder: Recorder, name: str, original: Callable[..., Any]) -> Any:
    # On CPU numpy reads jax arrays through the C buffer protocol, which no Python hook
    # sees; numpy's module functions are the one place to observe that wait.
    send, lock = recorder._send, recorder._lock

    @functools.wraps(original)
    def convert(obj: Any, *args: Any, **kwargs: Any) -> Any:
        began = _thread_time_ns()
        result = original(obj, *args, **kwargs)  # recorded only after it returned
        if recorder.enabled:
            leaves = list(_array_leaves(obj))
            # A list of plain values (``np.array(out.tolist())``) is recorded too, with no
            # arrays: the host side of a readback, CPU time that is explained, not a wait.
            # When jax's own code converts one (tracing a new shape checks each shape
            # tuple with ``np.array``, ``lax._check_shapelike``, inside the learner's call
            # and under its line; an eager ``jnp.einsum`` does too), it is recorded under
            # its own ``how``: its CPU time stays explained (60 eager einsums in one
            # interval otherwise left 6-9 ms unexplained, a verdict that flipped), and the
            # picture does not draw it as "wait: numpy.array (7 times)". A conversion of
            # arrays is the learner's whoever calls it (``tree_map(np.asarray, out)``).
            if leaves or type(obj) in (list, tuple):
                how = (JAX_OWN_CONVERSION if not leaves and _jax_caller(1)
                       else f"numpy.{name}")
                with lock:
                    send((_OP_SITED, "wait", {"how": how, "arrays": leaves,
                                              "site": None, "cpu0": began},
                          "arrays", 2, recorder.learner_files))
        return result

    return convert


# The offset of ``tp_as_buffer`` in CPython's PyTypeObject (3.11 to 3.13, 64-bit): the
# 21st pointer-sized field. ``_buffer_slot`` checks it against types whose slot is known.
_TP_AS_BUFFER = 20 * ctypes.sizeof(ctypes.c_void_p)


def _buffer_slot(cls: type) -> Any:
    return ctypes.c_void_p.from_address(id(cls) + _TP_AS_BUFFER)


def _route_host_reads_through_python(inst: Installation) -> None:
    """Make every host read of a device array run the array's own ``__array__`` (and so
    the hooked conversion funnel), however NumPy or Python reaches it.

    On CPU a jax array also offers the C buffer protocol, which NumPy tries first and no
    Python hook sees (``np.allclose(out, ref)``, ``np.float32(out[0])``, ``memoryview``):
    a real wait the grader could not count. With the type's buffer slot cleared, NumPy
    falls back to ``__array__``, as it does for arrays on a GPU (whose buffers offer no
    buffer protocol either). Done only where the slot's offset is verified on types whose
    slot is known; otherwise the hooks on NumPy's own conversion functions remain."""
    if ctypes.sizeof(ctypes.c_void_p) != 8 or sys.implementation.name != "cpython":
        return
    if (_buffer_slot(int).value is not None or _buffer_slot(object).value is not None
            or _buffer_slot(bytes).value is None or _buffer_slot(ArrayImpl).value is None):
        return
    slot = _buffer_slot(ArrayImpl)
    saved = slot.value
    slot.value = None
    inst.restores.append(lambda: setattr(slot, "value", saved))


# --------------------------------------------------------------------------- placement


def _install_placement(inst: Installation, recorder: Recorder) -> None:
    original = jax.device_put
    send, lock = recorder._send, recorder._lock

    @functools.wraps(original)
    def device_put(x: Any, *args: Any, **kwargs: Any) -> Any:
        began = _thread_time_ns()
        blocked = _blocked_ns(began)
        out = original(x, *args, **kwargs)
        if recorder.enabled:
            given = jax.tree_util.tree_leaves(x)
            placed = jax.tree_util.tree_leaves(out)
            arrays = [a for a in placed if isinstance(a, ArrayImpl)]
            # Only host data is a host-to-device transfer: a device array put on its own
            # device again moves nothing. ``host_leaves`` says, for each of ``arrays``,
            # whether its leaf came from the host (device_put keeps the tree's structure,
            # so the leaves pair up); ``host`` counts them, for older readers.
            if len(given) == len(placed):
                host_leaves = [not isinstance(g, ArrayImpl)
                               for g, a in zip(given, placed, strict=True)
                               if isinstance(a, ArrayImpl)]
            host = sum(1 for leaf in given if not isinstance(leaf, ArrayImpl))
            if len(given) != len(placed):  # not paired up: as the count alone decided
                host_leaves = [host > 0] * len(arrays)
            with lock:
                send((_OP_SITED, "placement", _began(
                    {"site": None, "arrays": arrays, "host": host,
                     "host_leaves": host_leaves, "cpu0": began}, blocked),
                      "arrays", 2, recorder.learner_files))
        return out

    inst.patch(jax, "device_put", device_put)
    inst.sends(device_put, "placement")
    for name in ("asarray", "array"):
        hook = _host_array_hook(recorder, getattr(jnp, name))
        inst.patch(jnp, name, hook)
        inst.sends(hook, "placement")


def _host_array_hook(recorder: Recorder, original: Callable[..., Any]) -> Any:
    # jnp.asarray/jnp.array of NumPy data places it on the device, like device_put; jax's
    # device_put hook never sees it (it takes a C++ path).
    send, lock = recorder._send, recorder._lock

    @functools.wraps(original)
    def convert(obj: Any, *args: Any, **kwargs: Any) -> Any:
        began = _thread_time_ns()
        # The blocked clock only for a NumPy array (jax's own code calls this often).
        blocked = _blocked_ns(began) if type(obj) is np.ndarray else None
        out = original(obj, *args, **kwargs)
        if recorder.enabled and isinstance(out, ArrayImpl) and any(
                isinstance(leaf, np.ndarray) for leaf in jax.tree_util.tree_leaves(obj)):
            with lock:
                send((_OP_SITED, "placement", _began({"site": None, "arrays": [out],
                                                      "host": 1, "cpu0": began}, blocked),
                      "arrays", 2, recorder.learner_files))
        return out

    return convert


# --------------------------------------------------------------------------- calls


def _is_tracing(leaves: list[Any]) -> bool:
    return any(isinstance(leaf, jax.core.Tracer) for leaf in leaves)


def _record_call(recorder: Recorder, name: str, call: Callable[..., Any],
                 args: tuple[Any, ...], kwargs: dict[str, Any], callee: Any = None,
                 static: tuple[Any, ...] | None = None,
                 options: dict[str, Any] | None = None) -> Any:
    """Run ``call(*args, **kwargs)``, one jitted call, and record it with its inputs,
    outputs and NumPy arguments, the object the learner called (``callee``: the core
    tells whether it is a callable the grader handed over), the values of its static
    arguments (``static``: positions, then names, as :class:`JitProxy` declares them),
    the ``jax.jit`` options it was made with (``options``, :func:`_jit_options`) and,
    when they donate, which inputs the call consumed (``donated``: one flag per input
    array, whether it was deleted when the call returned: XLA took its buffer. A
    donation XLA could not use, e.g. no output of that shape, leaves the input alive,
    with jax's "Some donated buffers were not usable" warning, on CPU as on GPU).

    Nothing is done before the dispatch: everything is recorded in one send once the call
    has returned (or raised), while the device works. Work before the dispatch would sit
    inside the learner's interval, and between the previous call's end and this dispatch,
    where it lets jax's dispatch thread fall asleep (waking it costs tens of microseconds
    that back-to-back uninstrumented calls never pay). The core numbers compilations
    reported during the call after the call itself: this code on the stack tells it a
    compilation is inside a call (see the recorder's CALL and COMPILE)."""
    out: Any = None
    raised = True
    began = _thread_time_ns()  # the call's CPU time is explained, not the learner's glue
    blocked = _blocked_ns(began)  # and any blocking inside it (a lock, a full queue)
    try:
        out = call(*args, **kwargs)
        raised = False
        return out
    finally:
        leaves = jax.tree_util.tree_leaves((args, kwargs))
        # One pass sorts the leaves; a tracer is neither an ArrayImpl nor an ndarray, so
        # only a call with some other leaf can be nested inside a trace (not a dispatch
        # of its own: not recorded).
        inputs = []
        numpy_args = 0
        other = False
        for leaf in leaves:
            if isinstance(leaf, ArrayImpl):
                inputs.append(leaf)
            elif isinstance(leaf, np.ndarray):
                numpy_args += 1
            else:
                other = True
        if not (other and _is_tracing(leaves)):
            if raised:
                outputs = None
            elif isinstance(out, ArrayImpl):  # a single array is its own only leaf
                outputs = [out]
            else:
                outputs = [leaf for leaf in jax.tree_util.tree_leaves(out)
                           if isinstance(leaf, ArrayImpl)]
            # One send, straight to the core (which tests that recording is on); the
            # learner's site is found from depth 3, past the proxy's frame.
            statics = None
            if static is not None:  # the static arguments' values, where given
                positions, names = static
                statics = [static_value(args[i]) if 0 <= i < len(args) else None
                           for i in positions] + [static_value(kwargs.get(n)) for n in names]
            # Whether jit was disabled for this call: it then ran op by op, compiling nothing.
            jit_disabled = _DISABLE_JIT.value is True
            donated = None
            if options is not None and (_DONATING[0] in options or _DONATING[1] in options):
                # After the call returned: a consumed input is deleted by then (jax
                # deletes it at dispatch). ``is_deleted`` only, never ``is_ready`` on it
                # (that segfaults on a deleted array).
                donated = [_IS_DELETED(leaf) is True for leaf in inputs]
            with recorder._lock:
                number = recorder._send((_OP_CALL, name, inputs, numpy_args, outputs, 3,
                                         recorder.learner_files, callee, statics, began,
                                         jit_disabled, options, donated, blocked))
            if not raised:
                _remember(callee, call, args, kwargs, statics, donated is not None,
                          _signature(leaves), number)


TIMED_CALLS: dict[Any, list[Any]] = {}
"""What the learner's jitted calls ran, for the grader's own timing of the call
(``harness.reference_timings``, the ``sample-duration`` check): per (callee, static
values, argument signature), ``[count, callee, call, args, kwargs, statics, donating,
numbers]`` of its latest call, ``numbers`` the event numbers of its latest
:data:`TIMED_CALL_NUMBERS` calls (the parent times against the one its samples' intervals
hold, never the most called or the latest alone: an untimed call on a larger input after
the samples must not set the call's reference). The harness empties it before each
learner call and reads it right after."""
TIMED_CALLS_CAP = 256  # distinct callees kept per learner call (a fresh jit per loop step)
TIMED_CALL_NUMBERS = 4096  # the latest calls' numbers kept per entry
_DEQUE = collections.deque  # bound before any learner code (which may rebind the module's)


def _signature(leaves: list[Any]) -> tuple[Any, ...]:
    """The call's arguments as the program sees them: the shape and dtype of each exact
    jax or NumPy array leaf, the type of any other (no learner method runs: exact types
    only, C attributes)."""
    return tuple((leaf.shape, leaf.dtype) if type(leaf) is ArrayImpl or type(leaf) is
                 np.ndarray else type(leaf) for leaf in leaves)


def _remember(callee: Any, call: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
              statics: Any, donating: bool, signature: tuple[Any, ...],
              number: Any) -> None:
    """Keep the latest call of ``callee`` with these static values and argument
    ``signature``, and the event ``number`` of the call (references only: nothing is
    copied or read, and no learner method runs: the key is the callee's address, the
    ``repr`` of plain built-in static values and the signature)."""
    key = (object.__hash__(callee), None if statics is None else repr(statics), signature)
    entry = TIMED_CALLS.get(key)
    if entry is not None:
        entry[0] += 1
        entry[2:5] = call, args, kwargs
    elif len(TIMED_CALLS) < TIMED_CALLS_CAP:
        entry = TIMED_CALLS[key] = [1, callee, call, args, kwargs, statics, donating,
                                    _DEQUE(maxlen=TIMED_CALL_NUMBERS)]
    if entry is not None and type(number) is int:
        entry[7].append(number)


# jax's ``jax_disable_jit`` setting (``jax.config.update`` or ``with jax.disable_jit()``,
# thread-local included): read after each recorded call, which then ran op by op.
_DISABLE_JIT = _jax_config.disable_jit
_PLAIN_SCALARS = (int, float, str, bool)
_NUMPY_ITEM = np.generic.item  # the scalar's own value, past any subclass's override


def static_value(value: Any, depth: int = 0) -> Any:
    """A static argument's value as the exact built-in the core can send: a NumPy scalar
    (``np.int64(384)``) by its Python value, an enum member by its value, a tuple item by
    item; anything else (or too deeply nested) is ``None``, which matches no declared
    value. jax keys its compiled programs by a static value's hash and equality, under
    which ``np.int64(384)`` and ``384`` are the same program: so is the recorded value."""
    kind = type(value)
    if value is None or kind in _PLAIN_SCALARS:
        return value
    if depth > 8:
        return None
    try:
        if isinstance(value, np.generic):
            return static_value(_NUMPY_ITEM(value), depth + 1)
        if isinstance(value, enum.Enum):
            return static_value(value._value_, depth + 1)
        if isinstance(value, tuple):
            return [static_value(item, depth + 1) for item in tuple.__iter__(value)]
        # A subclass of a built-in (an IntEnum is caught above): the base type's value.
        if isinstance(value, int):
            return int.__int__(value)
        if isinstance(value, float):
            return float.__float__(value)
        if isinstance(value, str):
            return str.__str__(value)
    except Exception:  # a learner's object that raised when read: no value
        return None
    return None


class JitProxy:
    """Stands in for a ``jax.jit`` function; records every concrete call.

    ``PjitFunction`` can neither be subclassed nor have ``__call__`` patched (vectorcall
    bypasses it), so the module attribute ``jax.jit`` returns this proxy instead.
    """

    def __init__(self, wrapped: Any, fun: Callable[..., Any], recorder: Recorder,
                 static: tuple[tuple[int, ...], tuple[str, ...]] | None = None,
                 options: dict[str, Any] | None = None) -> None:
        self._wrapped = wrapped
        self._recorder = recorder
        self._static = static
        self._options = options
        self.__wrapped__ = fun
        self.__name__ = getattr(fun, "__name__", type(fun).__name__)
        self.__qualname__ = getattr(fun, "__qualname__", self.__name__)
        self.__doc__ = getattr(fun, "__doc__", None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _record_call(self._recorder, self.__name__, self._wrapped, args, kwargs, self,
                            self._static, self._options)

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        """``jax.jit(f).lower(...)``, remembered as this function's: the program compiled
        from it (ahead of time) is the same callable (see ``_install_jit``)."""
        lowered = self._wrapped.lower(*args, **kwargs)
        try:  # noqa: SIM105 (contextlib is one more global a learner could replace)
            _AOT_SOURCE[lowered] = self
        except TypeError:
            pass
        return lowered

    def __getattr__(self, name: str) -> Any:
        return getattr(self._wrapped, name)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    @property
    def __signature__(self) -> Any:
        return inspect.signature(self.__wrapped__)


def _static_spec(options: dict[str, Any]) -> tuple[tuple[int, ...], tuple[str, ...]] | None:
    """``(static_argnums, static_argnames)`` of ``jax.jit`` options, normalised; ``None``
    when the function has no static arguments (nothing to record per call)."""

    def as_tuple(value: Any) -> tuple[Any, ...]:
        if value is None:
            return ()
        return (value,) if isinstance(value, (int, str)) else tuple(value)

    try:
        nums = tuple(int(i) for i in as_tuple(options.get("static_argnums")))
        names = tuple(str(n) for n in as_tuple(options.get("static_argnames")))
    except (TypeError, ValueError):  # jax itself will reject these options
        return None
    return (nums, names) if nums or names else None


RECORDED_OPTIONS = ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames",
                    "keep_unused", "inline")
"""The ``jax.jit`` options a recorded call carries (``jit`` of its event), when given."""
_DONATING = ("donate_argnums", "donate_argnames")


def _jit_options(options: dict[str, Any]) -> dict[str, Any] | None:
    """The :data:`RECORDED_OPTIONS` among ``jax.jit`` options, as exact built-ins
    (positions as ints, names as strs, in lists; flags as bools), only those given and not
    empty or false; ``None`` when there are none. Read once, when the jit is made (jax
    itself reads them then too), so nothing of the learner's runs at a call."""
    found: dict[str, Any] = {}
    for key in RECORDED_OPTIONS:
        value = options.get(key)
        if value is None or value is False:
            continue
        try:
            if key in ("keep_unused", "inline"):
                found[key] = bool(value)
            elif isinstance(value, (int, str)):
                found[key] = [int(value) if key.endswith("nums") else str(value)]
            else:
                found[key] = [int(v) if key.endswith("nums") else str(v) for v in value]
        except (TypeError, ValueError):  # jax itself rejects these options
            continue
        if found[key] in ([], False):
            del found[key]
    return found or None


# Lowered and Compiled stages -> the JitProxy they came from: calling a program compiled
# ahead of time (``fn.lower(*args).compile()``) is a call of ``fn``, under its name.
_AOT_SOURCE: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _install_jit(inst: Installation, recorder: Recorder) -> None:
    original_jit = jax.jit

    @functools.wraps(original_jit)
    def jit(fun: Any = None, /, **options: Any) -> Any:
        if fun is None:
            return lambda f: jit(f, **options)
        return JitProxy(original_jit(fun, **options), fun, recorder, _static_spec(options),
                        _jit_options(options))

    inst.patch(jax, "jit", jit)
    original_compiled_call = stages.Compiled.__call__

    def compiled_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        source = _AOT_SOURCE.get(self)
        # A program compiled from a recorded jit has that jit's options (its donations
        # included: the compiled program consumes the same inputs).
        return _record_call(recorder, "compiled" if source is None else source.__name__,
                            functools.partial(original_compiled_call, self), args, kwargs,
                            self if source is None else source, None,
                            None if source is None else source._options)

    inst.patch(stages.Compiled, "__call__", compiled_call)
    original_compile = stages.Lowered.compile

    def compile_lowered(self: Any, *args: Any, **kwargs: Any) -> Any:
        compiled = original_compile(self, *args, **kwargs)
        source = _AOT_SOURCE.get(self)
        if source is not None:
            try:  # noqa: SIM105
                _AOT_SOURCE[compiled] = source
            except TypeError:
                pass
        return compiled

    inst.patch(stages.Lowered, "compile", compile_lowered)


# --------------------------------------------------------------------------- host activity

# End marks, appended without a send (the core holds this list, Recorder.register, and
# takes and checks its entries when it writes the call's frame): ``(wait seq, CPU ns at
# its end)`` from the wait hooks, ``(-1, start CPU ns, end CPU ns, thread)`` per GC pause.
_MARKS: list[Any] = []
_MARKS_CAP = 100_000  # GC pauses between calls are not kept beyond this
_GC_STARTED: list[int | None] = [None]  # the current collection's start, until marked
# Array methods that compute eagerly (outside a jitted function): recorded as "eager".
EAGER_METHODS = (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__matmul__", "__rmatmul__", "__pow__", "__getitem__", "sum", "mean",
    "max", "min", "ravel", "reshape", "astype", "dot", "transpose",
)
# The jax.numpy functions recorded as "eager" work: those timing code uses on a result or
# an input (checksums, references, reductions, elementwise maths). Not all ~320 public
# names: each hook costs the child's start-up and every grade (docs/performance.md); other
# eager work is still seen through its host CPU time, and through its compile on first use.
EAGER_FUNCTIONS = (
    "sum", "mean", "max", "min", "prod", "std", "var", "median", "argmax", "argmin",
    "abs", "exp", "log", "sqrt", "square", "tanh", "sin", "cos", "maximum", "minimum",
    "add", "subtract", "multiply", "divide", "power", "matmul", "dot", "einsum", "tensordot",
    "where", "allclose", "isclose", "array_equal", "linalg", "concatenate", "stack",
    "reshape", "transpose", "ravel", "copy", "zeros_like", "ones_like", "cumsum", "sort",
)


def _install_host_activity(inst: Installation, recorder: Recorder) -> None:
    """Hooks for host work inside a timed interval that is no part of what is timed:
    writes to the learner's stdout/stderr, ``time.sleep``, eager ``jax.numpy`` work and
    array arithmetic outside jit (each a SITED event: "write", "sleep", "eager"), and
    GC pauses (an end mark: CPU time that is not the learner's). See docs/checks.md,
    "interval-clean"."""
    send, lock = recorder._send, recorder._lock
    original_sleep = time.sleep

    def sleep(seconds: Any, /) -> Any:
        with lock:
            send((_OP_SITED, "sleep", {"seconds": seconds if type(seconds) in (int, float)
                                       else None, "site": None},
                  None, 2, recorder.learner_files))
        return original_sleep(seconds)

    inst.patch(time, "sleep", sleep)
    inst.sends(sleep, "sleep")
    _install_streams(inst, recorder)
    for name in EAGER_FUNCTIONS:
        value = getattr(jnp, name, None)
        if value is not None and type(value).__name__ in ("PjitFunction", "function"):
            inst.patch(jnp, name, _eager_hook(recorder, name, value))
    for name in EAGER_METHODS:
        if name in ArrayImpl.__dict__:
            inst.patch(ArrayImpl, name,
                       _eager_hook(recorder, name.strip("_"), ArrayImpl.__dict__[name]))
    inst.sends(_record_eager, "eager")

    _install_gc_marks(inst)


def _install_gc_marks(inst: Installation) -> None:
    """GC pauses as end marks, the collector's own time only: the learner's own
    ``gc.callbacks`` entries run learner code inside a collection, so the pause is
    stamped after every "start" entry and before every "stop" entry. The grader keeps two
    entries in the list, ``gc_stop`` first (it stamps the end) and ``gc_start`` last (it
    stamps the start, and again each time it is called: the last call wins). CPython
    calls the entries by index over the live list, so they are put back in place only in
    ways that call no entry twice but these two and skip none: ``gc_start`` appends
    itself and inserts ``gc_stop`` at the front when the learner added or moved entries
    (it is then called once more, last); ``gc_stop``, the first entry called for "stop",
    tidies the entries after it. The entries present at install are the libraries' (jax
    frees XLA's garbage at every phase): each is marked as part of the collection.
    Finalizers (``__del__``, ``weakref.finalize``) that a collection runs are still
    inside the pause (docs/checks.md, "interval-clean")."""
    callbacks = gc.callbacks

    def gc_start(phase: str, info: Any) -> None:
        if phase != "start":
            return
        _GC_STARTED[0] = _thread_time_ns()
        if callbacks[-1] is not gc_start:
            callbacks.append(gc_start)
        if callbacks[0] is not gc_stop:
            callbacks.insert(0, gc_stop)  # the entries from here on move one place on

    def gc_stop(phase: str, info: Any) -> None:
        began = _GC_STARTED[0]
        if phase != "stop" or began is None:
            return  # not a stop, or another copy of this entry marked the pause already
        _GC_STARTED[0] = None
        if len(_MARKS) < _MARKS_CAP:
            _MARKS.append((-1, began, _thread_time_ns(), _get_ident()))
        if callbacks[0] is gc_stop:  # called first, at index 0: the rest is still to come
            callbacks[1:] = [*(c for c in callbacks[1:]
                               if c is not gc_stop and c is not gc_start), gc_start]

    # The entries already there are the libraries' (jax's XLA garbage collection runs
    # at every phase): the collection's own work, credited as pauses of their own.
    originals: dict[Any, Any] = {_library_gc_entry(entry): entry for entry in callbacks}
    callbacks[:] = [gc_stop, *originals, gc_start]

    def restore() -> None:
        callbacks[:] = [originals.get(c, c) for c in callbacks
                        if c is not gc_stop and c is not gc_start]

    inst.restores.append(restore)


def _library_gc_entry(entry: Callable[..., Any]) -> Callable[[Any, Any], Any]:
    """A ``gc.callbacks`` entry of a library (present before any learner code), run as
    before and marked as part of the collection (an end mark of its own)."""

    def library_entry(phase: Any, info: Any) -> Any:
        began = _thread_time_ns()
        try:
            return entry(phase, info)
        finally:
            if len(_MARKS) < _MARKS_CAP:
                _MARKS.append((-1, began, _thread_time_ns(), _get_ident()))

    return library_entry


def _eager_hook(recorder: Recorder, name: str, original: Callable[..., Any]) -> Any:
    # After the work (nothing before it: a traced call, inside jit, must stay cheap: its
    # result is a tracer, and nothing is sent).
    array_type = ArrayImpl

    @functools.wraps(original)
    def eager(*args: Any, **kwargs: Any) -> Any:
        began = _thread_time_ns()
        out = original(*args, **kwargs)
        # With jit disabled, a "jitted" call runs its own operations eagerly: they are
        # that call's work, not the learner's (and `times-the-call` fails the call), and
        # recording each would slow an op-by-op loop past the time limit.
        if type(out) is array_type and _DISABLE_JIT.value is not True:
            _record_eager(recorder, name, args, out, began)
        return out

    return eager


def _record_eager(recorder: Recorder, name: str, args: tuple[Any, ...], out: Any,
                  began: int) -> None:
    """Record one eager computation (one send, straight to the core, which tests that
    recording is on). The event's arrays are the array arguments, then the result
    (``inputs`` counts the former): a reduction of the timed output (``float(out.sum())``)
    is part of the wait, a computation on anything else is not (the check follows the
    data). ``began``: the CPU time before it ran (``cpu0``; a compilation on first use
    happens inside). One sender for every eager hook: the core re-checks a sender's captured cells
    on every event, and the hooks' are many."""
    inputs = [a for a in args if type(a) is ArrayImpl]
    with recorder._lock:
        recorder._send((_OP_SITED, "eager", {"fun": name, "arrays": [*inputs, out],
                                             "inputs": len(inputs), "site": None,
                                             "cpu0": began},
                        "arrays", 3, recorder.learner_files))


def _install_streams(inst: Installation, recorder: Recorder) -> None:
    # The learner's ``sys.stdout``/``sys.stderr`` write through a stand-in that records
    # each write ("write", the stream's name) and passes it on. Not an attribute patch
    # (``contextlib.redirect_stdout`` is the learner's right, not tampering): restored on
    # undo. A write to another object, or to the fd, is not seen here.
    send, lock = recorder._send, recorder._lock

    def stand_in(stream: Any, label: str) -> Any:
        def write(text: Any, /) -> Any:
            with lock:
                send((_OP_SITED, "write", {"stream": label, "site": None}, None, 2,
                      recorder.learner_files))
            return stream.write(text)

        inst.sends(write, "write")
        return _Stream(stream, write)

    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = stand_in(sys.stdout, "stdout"), stand_in(sys.stderr, "stderr")
    inst.listeners.extend([sys.stdout.write, sys.stderr.write])

    def restore() -> None:
        sys.stdout, sys.stderr = saved

    inst.restores.append(restore)


class _Stream:
    """A text stream that writes through ``write`` (a hook) and is otherwise ``stream``."""

    def __init__(self, stream: Any, write: Callable[[Any], Any]) -> None:
        self._stream = stream
        self.write = write

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


# --------------------------------------------------------------------------- threads


# The learner's threads, appended without a send by each thread itself (the core holds
# this list, Recorder.register, and takes its entries at each clock read while one of
# the learner's threads exists): ``(ident, CPU clock id, -1)`` when the thread begins,
# ``(ident, CPU clock id, its CPU ns)`` when its function has returned (the clock id is
# None where there is none: such a thread counts only once it has ended). Learner code can
# reach the list: the core keeps exact ints only, and a forged or removed entry can only
# hide the learner's own threads' CPU time, as calling the original
# ``_thread.start_new_thread`` could (docs/security.md, "Hiding events").
_THREADS: list[Any] = []
THREAD_STARTERS = ("start_new_thread", "start_new", "start_joinable_thread")
"""``_thread``'s functions every Python thread is born through (3.11: the first two, one
function under two names; 3.13: the third, which ``threading`` uses)."""


def _started_by_learner(frame: Any, files: frozenset[str]) -> bool:
    """A learner file's frame is on the stack that starts a thread (``frame`` outwards):
    the learner's code started it, directly or through any library (``threading``,
    ``concurrent.futures``). The grader's threads start from the main thread, where no
    learner code runs; XLA's are native and never pass through ``_thread``."""
    while frame is not None:
        name = frame.f_code.co_filename
        if type(name) is str and name in files:
            return True
        frame = frame.f_back
    return False


def _counted_thread(function: Any) -> Any:
    """``function`` run so that its thread's CPU time is the core's to read: the thread
    says when it begins (its ident and CPU clock) and, when ``function`` returns or
    raises, how much CPU time it spent (a thread that ends inside a timed interval keeps
    its time there; its clock can no longer be read once it has gone)."""

    def counted(*args: Any, **kwargs: Any) -> Any:
        ident = _get_ident()
        clock = None
        if _CPU_CLOCK_ID is not None:
            try:
                clock = _CPU_CLOCK_ID(ident)
            except (OSError, OverflowError):  # no clock: read only at the end
                clock = None
        _THREADS.append((ident, clock, -1))
        try:
            return function(*args, **kwargs)
        finally:
            _THREADS.append((ident, clock, _thread_time_ns()))

    return counted


def _install_threads(inst: Installation, recorder: Recorder) -> None:
    """Every thread the learner's code starts, however (``threading.Thread``, an
    executor, ``_thread``), runs its function through :func:`_counted_thread`: its CPU
    time inside a timed interval is host work (docs/checks.md, "interval-clean").
    Hooked where threads are born: ``_thread``'s starters, and ``threading``'s own
    reference to one, bound when ``threading`` was imported (before any hook). Costs
    nothing while the learner starts no thread."""
    for name in THREAD_STARTERS:
        original = getattr(_thread, name, None)
        if original is None:
            continue
        hook = _thread_starter(recorder, original)
        inst.patch(_thread, name, hook)
        private = f"_{name}"
        if getattr(threading, private, None) is original:
            inst.patch(threading, private, hook)


def _thread_starter(recorder: Recorder, original: Callable[..., Any]) -> Any:
    """``original`` (a ``_thread`` starter), handing it :func:`_counted_thread` of the
    function when the learner's code starts the thread (:func:`_started_by_learner`)
    and the function itself otherwise. Nothing is sent: the thread reports itself."""

    def start(function: Any, *args: Any, **kwargs: Any) -> Any:
        if _started_by_learner(sys._getframe(1), recorder.learner_files):
            function = _counted_thread(function)
        return original(function, *args, **kwargs)

    start.__name__ = start.__qualname__ = getattr(original, "__name__", "start_new_thread")
    start.__doc__ = getattr(original, "__doc__", None)
    return start


# --------------------------------------------------------------------------- host callbacks


def _install_host_callbacks(inst: Installation, recorder: Recorder) -> None:
    """Every run of a compiled program's host callback, as a "callback" event.

    Every host callback jax offers (``jax.pure_callback``, ``io_callback``,
    ``jax.debug.callback``, ``jax.debug.print``, checkify's) is lowered into the program
    through one function, ``jax._src.callback.emit_python_callback``, which receives the
    Python function XLA will call. The hook hands it a wrapper that records each run
    (its CPU span, on the thread XLA ran it on) and the learner's line that made the
    callback (from the lowering's traceback). A program lowered before this hook (none:
    it is installed before any learner code) would go unseen."""
    callback_module = jax_callback
    original = callback_module.emit_python_callback

    @functools.wraps(original)
    def emit_python_callback(ctx: Any, callback: Any, *args: Any, **kwargs: Any) -> Any:
        line = _traceback_line(getattr(ctx, "traceback", None), recorder.learner_files)

        def counted(*values: Any) -> Any:
            began = _thread_time_ns()
            try:
                return callback(*values)
            finally:
                _record_host_callback(recorder, line, began)

        return original(ctx, counted, *args, **kwargs)

    inst.patch(callback_module, "emit_python_callback", emit_python_callback)
    inst.sends(_record_host_callback, "callback")


def _traceback_line(traceback: Any, files: frozenset[str]) -> int | None:
    """The innermost line of a learner file in a jax traceback (``None``: none there)."""
    try:
        frames = traceback.frames if traceback is not None else []
        for frame in frames:
            if frame.file_name in files:
                return int(frame.line_num)
    except Exception:  # an unexpected traceback type: no line, the run is still recorded
        return None
    return None


def _record_host_callback(recorder: Recorder, line: int | None, began: int) -> None:
    """Record one run of a host callback (one send, straight to the core, which tests
    that recording is on): ``cpu0`` when it began, the core stamps its end."""
    with recorder._lock:
        recorder._send((_OP_SITED, "callback", {"line": line, "site": None, "cpu0": began},
                        None, 3, recorder.learner_files))


# --------------------------------------------------------------------------- compilation


def _install_compile_listener(recorder: Recorder) -> Any:
    # Listeners fire synchronously inside the call that compiles, so their sequence
    # number places the compilation exactly. jax offers no way to remove them again,
    # which is fine: the child process is used for one submission only.
    send, lock = recorder._send, recorder._lock

    def on_duration(event: str, duration_secs: float, **kwargs: str | int) -> None:
        if event in COMPILE_EVENTS:
            # Its own duration too: sample-duration credits a sample's compilations
            # (capped there: learner code can report a duration to jax's monitoring).
            seconds = float(duration_secs) if type(duration_secs) in (int, float) else 0.0
            with lock:
                send((_OP_COMPILE, {"event": event.rsplit("/", 1)[-1],
                                    "fun": str(kwargs.get("fun_name", "")),
                                    "seconds": seconds},
                      recorder.learner_files))

    monitoring.register_event_duration_secs_listener(on_duration)
    return on_duration


def hook_codes() -> frozenset[Any]:
    """The code objects allowed to send events: every function defined in this module,
    nested ones included (the recorder checks the sender's code against this set)."""
    codes: set[Any] = set()
    pending = [value.__code__ for value in list(globals().values())
               if isinstance(value, type(hook_codes)) and value.__module__ == __name__]
    for cls in (Reading, ReadingNs, JitProxy):
        pending += [m.__code__ for m in vars(cls).values() if hasattr(m, "__code__")]
    while pending:
        code = pending.pop()
        if code in codes:
            continue
        codes.add(code)
        pending += [c for c in code.co_consts if isinstance(c, type(code))]
    return frozenset(codes)


def install(recorder: Recorder) -> Installation:
    """Install every hook on ``recorder``; see the module docstring for ordering rules."""
    inst = Installation()
    _install_timers(inst, recorder)
    _install_waits(inst, recorder)
    _install_placement(inst, recorder)
    _route_host_reads_through_python(inst)
    _install_jit(inst, recorder)
    listener = _install_compile_listener(recorder)
    inst.listeners.append(listener)
    inst.sends(listener, "compile")
    inst.sends(_record_call, "call", "return")
    _install_host_activity(inst, recorder)
    _install_host_callbacks(inst, recorder)
    _install_threads(inst, recorder)
    # Before the caller's PROTECT, while no learner code exists: the core accepts the
    # table only then.
    recorder.register(inst.senders, PAIRS, CLOCK_READINGS, globals(), _MARKS, _THREADS)
    return inst


# Module-level functions that send events themselves (the recorder checks their globals).
# ``_record_pair`` sends nothing: it appends to ``PAIRS``, whose entries the core checks.
EMITTING_HELPERS = [_record_call, _record_eager, _record_host_callback]
