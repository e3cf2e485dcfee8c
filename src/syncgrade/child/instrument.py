"""Hooks that let the grader see what a learner's timed interval contained.

``install(recorder)`` must run after ``import jax`` (jax.numpy re-registers array methods
at import) and before the submission is imported (a learner's ``from time import
perf_counter`` keeps whatever is there at that moment). It returns an ``Installation``
whose ``tampered()`` lists hooks that are no longer in place and whose ``undo()`` restores
the originals. Facts behind each hook: shared/research/jax-instrumentation.md.
"""

from __future__ import annotations

import functools
import inspect
import time
import timeit
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import monitoring
from jax._src import stages
from jax._src.lib import xla_client as xc

# The core's operation codes under names the recorder module does not have: the core
# re-checks, on every event, each global a hook uses in every grader module dict that
# has that name, so a name shared with the recorder's dict would add a lookup there.
from syncgrade.child.recorder import EMIT as _OP_EMIT
from syncgrade.child.recorder import RETURN as _OP_RETURN
from syncgrade.child.recorder import SITED as _OP_SITED
from syncgrade.child.recorder import TIMER as _OP_TIMER
from syncgrade.child.recorder import Recorder

ArrayImpl: Any = xc.ArrayImpl
HOST_CONVERSIONS = ("asarray", "array", "asanyarray")
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


# --------------------------------------------------------------------------- timers


class Reading(float):
    """A float clock reading that records which two readings were subtracted."""

    __slots__ = ("seq",)
    recorder: Recorder | None = None

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

    recorder: Recorder | None = None

    def __sub__(self, other: Any) -> Any:
        result = int.__sub__(self, other)
        if result is not NotImplemented:
            _record_pair(other, self)
        return result

    def __rsub__(self, other: Any) -> Any:
        return int.__rsub__(self, other)

    def __reduce__(self) -> Any:
        return (int, (int(self),))


def _record_pair(start: Any, stop: Any) -> None:
    recorder = Reading.recorder
    start_seq = getattr(start, "seq", None)
    if recorder is not None and start_seq is not None:
        # The values let the recorder check that both operands are the reads they claim
        # to be (a hand-made ``Reading`` with a chosen ``seq`` is refused). Sent directly
        # (a registered sender of "pair"), as :meth:`Recorder.emit` would.
        recorder._send((_OP_EMIT, "pair", {
            "start": start_seq, "stop": stop.seq, "start_value": _plain(start),
            "stop_value": _plain(stop)}))


def _plain(reading: Any) -> Any:
    return int.__int__(reading) if isinstance(reading, int) else float.__float__(reading)


def _timer_hook(recorder: Recorder, clock: str, original: Callable[[], Any], cls: type) -> Any:
    # One closure cell holding an immutable tuple, not six cells: the six clocks' hooks
    # share one code object, so the recorder re-checks every timer hook's cells on every
    # clock read, and a replaced tuple is caught exactly as a replaced cell was.
    captured = (recorder, clock, original, cls, recorder._send, _OP_TIMER)

    def read() -> Any:
        recorder, clock, original, cls, send, timer = captured
        # One send, straight to the core (this code is a registered sender of "timer"
        # events; no Recorder method frame in between), does the rest inside the core:
        # whether recording is on, whether this hook's caller (its frame is the hook's
        # f_back there, so no audited sys._getframe here) is learner code (jax and the
        # stdlib read clocks too; their reads are not intervals), the clock read itself
        # (with the core's own clock, never ``original``: a learner can run this code
        # with a closure of its own), the "timer" event with that caller's line as its
        # site, and right after it whether the latest call's outputs were ready (proof
        # of an early stop; the core checks with its own captured is_ready).
        read_by_core = send((timer, clock, recorder.learner_files))
        if read_by_core is None:  # not recording, or not a learner's read
            return original()
        seq, value = read_by_core
        reading = cls(value)
        reading.seq = seq
        return reading

    read.__name__ = clock
    return read


_ORIGINAL_IS_READY: Callable[[Any], bool] = ArrayImpl.__dict__["is_ready"]
_ORIGINAL_IS_DELETED: Callable[[Any], bool] = ArrayImpl.__dict__["is_deleted"]


def _install_timers(inst: Installation, recorder: Recorder) -> None:
    Reading.recorder = recorder
    ReadingNs.recorder = recorder
    originals = {}
    for clock, cls in (
        ("perf_counter", Reading),
        ("monotonic", Reading),
        ("time", Reading),
        ("perf_counter_ns", ReadingNs),
        ("monotonic_ns", ReadingNs),
        ("time_ns", ReadingNs),
    ):
        originals[clock] = getattr(time, clock)
        hook = _timer_hook(recorder, clock, originals[clock], cls)
        inst.patch(time, clock, hook)
        inst.sends(hook, "timer")
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
    send = recorder._send

    def hooked(self: Any, *args: Any, **kwargs: Any) -> Any:
        # Recorded only once the real call has returned: a call that raises (a bad
        # argument, a deleted array) waited for nothing.
        result = original(self, *args, **kwargs)
        # One send, straight to the core: the core tests that recording is on, turns
        # ``arrays`` into tokens and finds the learner's site (``site`` keeps its place
        # among the fields) from the hook's caller (depth 2).
        send((_OP_SITED, "wait", {"how": how, "arrays": [self], "site": None}, "arrays", 2,
              recorder.learner_files))
        return result

    return hooked


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

    original_is_ready = ArrayImpl.__dict__["is_ready"]
    send = recorder._send

    def is_ready(self: Any) -> bool:
        ready = bool(original_is_ready(self))
        if ready:  # a learner polling loop that saw completion (if recording)
            send((_OP_SITED, "wait", {"how": "is_ready", "arrays": [self], "site": None},
                  "arrays", 2, recorder.learner_files))
        return ready

    inst.patch(ArrayImpl, "is_ready", is_ready)
    inst.sends(is_ready, "wait")

    original_batched = xc.batched_block_until_ready

    def batched_block_until_ready(arrays: Any) -> Any:
        result = original_batched(arrays)  # recorded only after it returned
        send((_OP_SITED, "wait", {"how": "block_until_ready",
                                  "arrays": [a for a in arrays], "site": None},
              "arrays", 2, recorder.learner_files))
        return result

    inst.patch(xc, "batched_block_until_ready", batched_block_until_ready)
    inst.sends(batched_block_until_ready, "wait")

    for name in HOST_CONVERSIONS:
        hook = _numpy_conversion_hook(recorder, name, getattr(np, name))
        inst.patch(np, name, hook)
        inst.sends(hook, "wait")


def _numpy_conversion_hook(recorder: Recorder, name: str, original: Callable[..., Any]) -> Any:
    # On CPU numpy reads jax arrays through the C buffer protocol, which no Python hook
    # sees; numpy's module functions are the one place to observe that wait.
    send = recorder._send

    @functools.wraps(original)
    def convert(obj: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(obj, *args, **kwargs)  # recorded only after it returned
        if recorder.enabled:
            leaves = list(_array_leaves(obj))
            if leaves:
                send((_OP_SITED, "wait", {"how": f"numpy.{name}", "arrays": leaves, "site": None},
                      "arrays", 2, recorder.learner_files))
        return result

    return convert


# --------------------------------------------------------------------------- placement


def _install_placement(inst: Installation, recorder: Recorder) -> None:
    original = jax.device_put
    send = recorder._send

    @functools.wraps(original)
    def device_put(x: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(x, *args, **kwargs)
        if recorder.enabled:
            send((_OP_SITED, "placement", {"site": None, "arrays": [
                a for a in jax.tree_util.tree_leaves(out) if isinstance(a, ArrayImpl)]},
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
    send = recorder._send

    @functools.wraps(original)
    def convert(obj: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(obj, *args, **kwargs)
        if recorder.enabled and isinstance(out, ArrayImpl) and any(
                isinstance(leaf, np.ndarray) for leaf in jax.tree_util.tree_leaves(obj)):
            send((_OP_SITED, "placement", {"site": None, "arrays": [out]}, "arrays", 2,
                  recorder.learner_files))
        return out

    return convert


# --------------------------------------------------------------------------- calls


def _is_tracing(leaves: list[Any]) -> bool:
    return any(isinstance(leaf, jax.core.Tracer) for leaf in leaves)


def _record_call(recorder: Recorder, name: str, call: Callable[..., Any],
                 args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Run ``call(*args, **kwargs)``, one jitted call, and record it with its inputs,
    outputs and NumPy arguments."""
    leaves = jax.tree_util.tree_leaves((args, kwargs))
    # One pass sorts the leaves; a tracer is neither an ArrayImpl nor an ndarray, so
    # only a call with some other leaf can be nested inside a trace.
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
    if other and _is_tracing(leaves):
        return call(*args, **kwargs)  # nested inside a trace: not a dispatch of its own
    # One send, straight to the core: the core tests that
    # recording is on (None: not recording), turns ``inputs`` into tokens and finds the
    # learner's site (3: past the proxy's frame).
    send = recorder._send
    seq = send((_OP_SITED, "call", {"name": name, "site": None, "inputs": inputs,
                                "numpy_args": numpy_args}, "inputs", 3, recorder.learner_files))
    if seq is None:
        return call(*args, **kwargs)
    out = call(*args, **kwargs)
    # A single array is its own only leaf.
    outputs = [out] if isinstance(out, ArrayImpl) else [
        leaf for leaf in jax.tree_util.tree_leaves(out) if isinstance(leaf, ArrayImpl)]
    # The return event (with the outputs' tokens) and the outputs later readiness checks
    # look at, in one send.
    send((_OP_RETURN, seq, outputs))
    return out


class JitProxy:
    """Stands in for a ``jax.jit`` function; records every concrete call.

    ``PjitFunction`` can neither be subclassed nor have ``__call__`` patched (vectorcall
    bypasses it), so the module attribute ``jax.jit`` returns this proxy instead.
    """

    def __init__(self, wrapped: Any, fun: Callable[..., Any], recorder: Recorder) -> None:
        self._wrapped = wrapped
        self._recorder = recorder
        self.__wrapped__ = fun
        self.__name__ = getattr(fun, "__name__", type(fun).__name__)
        self.__qualname__ = getattr(fun, "__qualname__", self.__name__)
        self.__doc__ = getattr(fun, "__doc__", None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _record_call(self._recorder, self.__name__, self._wrapped, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._wrapped, name)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    @property
    def __signature__(self) -> Any:
        return inspect.signature(self.__wrapped__)


def _install_jit(inst: Installation, recorder: Recorder) -> None:
    original_jit = jax.jit

    @functools.wraps(original_jit)
    def jit(fun: Any = None, /, **options: Any) -> Any:
        if fun is None:
            return lambda f: jit(f, **options)
        return JitProxy(original_jit(fun, **options), fun, recorder)

    inst.patch(jax, "jit", jit)
    original_compiled_call = stages.Compiled.__call__

    def compiled_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return _record_call(recorder, "compiled",
                            functools.partial(original_compiled_call, self), args, kwargs)

    inst.patch(stages.Compiled, "__call__", compiled_call)


# --------------------------------------------------------------------------- compilation


def _install_compile_listener(recorder: Recorder) -> Any:
    # Listeners fire synchronously inside the call that compiles, so their sequence
    # number places the compilation exactly. jax offers no way to remove them again,
    # which is fine: the child process is used for one submission only.
    send = recorder._send

    def on_duration(event: str, duration_secs: float, **kwargs: str | int) -> None:
        if event in COMPILE_EVENTS:
            send((_OP_SITED, "compile", {"event": event.rsplit("/", 1)[-1],
                                     "fun": str(kwargs.get("fun_name", "")), "site": None},
                  None, 2, recorder.learner_files))

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
    _install_jit(inst, recorder)
    listener = _install_compile_listener(recorder)
    inst.listeners.append(listener)
    inst.sends(listener, "compile")
    inst.sends(_record_call, "call", "return")
    inst.sends(_record_pair, "pair")
    # Before the caller's PROTECT, while no learner code exists: the core accepts the
    # table only then.
    recorder.register(inst.senders)
    return inst


# Module-level functions that send events themselves (the recorder checks their globals).
EMITTING_HELPERS = [_record_pair, _record_call]
