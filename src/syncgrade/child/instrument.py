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
        # to be (a hand-made ``Reading`` with a chosen ``seq`` is refused).
        recorder.emit("pair", start=start_seq, stop=stop.seq,
                      start_value=_plain(start), stop_value=_plain(stop))


def _plain(reading: Any) -> Any:
    return int.__int__(reading) if isinstance(reading, int) else float.__float__(reading)


def _timer_hook(recorder: Recorder, clock: str, original: Callable[[], Any], cls: type) -> Any:
    # One closure cell holding an immutable tuple, not four cells: the six clocks' hooks
    # share one code object, so the recorder re-checks every timer hook's cells on every
    # clock read, and a replaced tuple is caught exactly as a replaced cell was.
    captured = (recorder, clock, original, cls)

    def read() -> Any:
        recorder, clock, original, cls = captured
        value = original()
        # One send does the rest inside the core: whether recording is on, whether this
        # hook's caller (its frame is the hook's f_back there, so no audited
        # sys._getframe here) is learner code (jax and the stdlib read clocks too; their
        # reads are not intervals), the "timer" event with that caller's line as its
        # site, and right after it whether the latest call's outputs were ready (proof
        # of an early stop; the core checks with its own captured is_ready).
        seq = recorder.timer(clock, value)
        if seq is None:  # not recording, or not a learner's read
            return value
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
        inst.patch(time, clock, _timer_hook(recorder, clock, originals[clock], cls))
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
    def hooked(self: Any, *args: Any, **kwargs: Any) -> Any:
        # Recorded only once the real call has returned: a call that raises (a bad
        # argument, a deleted array) waited for nothing.
        result = original(self, *args, **kwargs)
        # One send: the core tests that recording is on, turns ``arrays`` into tokens and
        # finds the learner's site (``site`` keeps its place among the fields).
        recorder.emit_sited("wait", "arrays", 2, how=how, arrays=[self], site=None)
        return result

    return hooked


def _install_waits(inst: Installation, recorder: Recorder) -> None:
    for name, how in (
        ("block_until_ready", "block_until_ready"),
        ("_single_device_array_to_np_array_did_copy", "host conversion"),
        ("item", "item"),
        ("tolist", "tolist"),
    ):
        inst.patch(ArrayImpl, name, _wait_hook(recorder, how, ArrayImpl.__dict__[name]))

    original_is_ready = ArrayImpl.__dict__["is_ready"]

    def is_ready(self: Any) -> bool:
        ready = bool(original_is_ready(self))
        if ready:  # a learner polling loop that saw completion (if recording)
            recorder.emit_sited("wait", "arrays", 2, how="is_ready", arrays=[self], site=None)
        return ready

    inst.patch(ArrayImpl, "is_ready", is_ready)

    original_batched = xc.batched_block_until_ready

    def batched_block_until_ready(arrays: Any) -> Any:
        result = original_batched(arrays)  # recorded only after it returned
        recorder.emit_sited("wait", "arrays", 2, how="block_until_ready",
                            arrays=[a for a in arrays], site=None)
        return result

    inst.patch(xc, "batched_block_until_ready", batched_block_until_ready)

    for name in HOST_CONVERSIONS:
        inst.patch(np, name, _numpy_conversion_hook(recorder, name, getattr(np, name)))


def _numpy_conversion_hook(recorder: Recorder, name: str, original: Callable[..., Any]) -> Any:
    # On CPU numpy reads jax arrays through the C buffer protocol, which no Python hook
    # sees; numpy's module functions are the one place to observe that wait.
    @functools.wraps(original)
    def convert(obj: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(obj, *args, **kwargs)  # recorded only after it returned
        if recorder.enabled:
            leaves = list(_array_leaves(obj))
            if leaves:
                recorder.emit_sited("wait", "arrays", 2, how=f"numpy.{name}", arrays=leaves,
                                    site=None)
        return result

    return convert


# --------------------------------------------------------------------------- placement


def _install_placement(inst: Installation, recorder: Recorder) -> None:
    original = jax.device_put

    @functools.wraps(original)
    def device_put(x: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(x, *args, **kwargs)
        if recorder.enabled:
            recorder.emit_sited("placement", "arrays", 2, site=None, arrays=[
                a for a in jax.tree_util.tree_leaves(out) if isinstance(a, ArrayImpl)])
        return out

    inst.patch(jax, "device_put", device_put)
    for name in ("asarray", "array"):
        inst.patch(jnp, name, _host_array_hook(recorder, getattr(jnp, name)))


def _host_array_hook(recorder: Recorder, original: Callable[..., Any]) -> Any:
    # jnp.asarray/jnp.array of NumPy data places it on the device, like device_put; jax's
    # device_put hook never sees it (it takes a C++ path).
    @functools.wraps(original)
    def convert(obj: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(obj, *args, **kwargs)
        if recorder.enabled and isinstance(out, ArrayImpl) and any(
                isinstance(leaf, np.ndarray) for leaf in jax.tree_util.tree_leaves(obj)):
            recorder.emit_sited("placement", "arrays", 2, site=None, arrays=[out])
        return out

    return convert


# --------------------------------------------------------------------------- calls


def _is_tracing(leaves: list[Any]) -> bool:
    return any(isinstance(leaf, jax.core.Tracer) for leaf in leaves)


def _record_call(recorder: Recorder, name: str, call: Callable[[], Any], args: Any) -> Any:
    """Run one jitted call and record it with its inputs, outputs and NumPy arguments."""
    leaves = jax.tree_util.tree_leaves(args)
    if _is_tracing(leaves):
        return call()  # nested inside a trace: not a dispatch of its own
    numpy_args = sum(1 for leaf in leaves if isinstance(leaf, np.ndarray))
    inputs = [leaf for leaf in leaves if isinstance(leaf, ArrayImpl)]
    # One send: the core tests that recording is on (None: not recording), turns
    # ``inputs`` into tokens and finds the learner's site (3: past the proxy's frame).
    seq = recorder.emit_sited(
        "call", "inputs", 3, name=name, site=None, inputs=inputs, numpy_args=numpy_args,
    )
    if seq is None:
        return call()
    out = call()
    outputs = [leaf for leaf in jax.tree_util.tree_leaves(out) if isinstance(leaf, ArrayImpl)]
    # The return event (with the outputs' tokens) and the outputs later readiness checks
    # look at, in one send.
    recorder.returned(seq, outputs)
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
        return _record_call(
            self._recorder, self.__name__, lambda: self._wrapped(*args, **kwargs), (args, kwargs)
        )

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
        return _record_call(
            recorder, "compiled", lambda: original_compiled_call(self, *args, **kwargs),
            (args, kwargs),
        )

    inst.patch(stages.Compiled, "__call__", compiled_call)


# --------------------------------------------------------------------------- compilation


def _install_compile_listener(recorder: Recorder) -> Any:
    # Listeners fire synchronously inside the call that compiles, so their sequence
    # number places the compilation exactly. jax offers no way to remove them again,
    # which is fine: the child process is used for one submission only.
    def on_duration(event: str, duration_secs: float, **kwargs: str | int) -> None:
        if event in COMPILE_EVENTS:
            recorder.emit_sited(
                "compile", None, 2, event=event.rsplit("/", 1)[-1],
                fun=str(kwargs.get("fun_name", "")), site=None,
            )

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
    inst.listeners.append(_install_compile_listener(recorder))
    return inst


# Module-level functions that send events themselves (the recorder checks their globals).
EMITTING_HELPERS = [_record_pair, _record_call]
