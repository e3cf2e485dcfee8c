"""Build the arguments a job asks for and run one learner call under the recorder.

A job names its arguments as small data specs (``{"kind": "device", "name": "x"}``), so a
rubric stays data-like and the child never sees expected values. Spec kinds:

- ``value``: a JSON scalar, passed as is.
- ``host``: the NumPy array ``name`` from the job's inputs file.
- ``device``: that array placed on the default device; ``ready: false`` hands it over while
  still being computed (to test that the learner waits for inputs).
- ``tuple``: a tuple of ``items`` specs.
- ``jax_device``: the default device; with ``fault``, a device whose arithmetic is slightly
  off from then on (``workloads.install_device_fault``, installed before any argument of
  the call is built: :func:`install_faults`).
- ``rng``: ``np.random.default_rng(seed)``.
- ``workload``: ``jax.jit`` of a named workload (recorded like any jit), compiled and
  warmed on ``warm`` specs when given. The workload is a built-in one
  (``workloads.WORKLOADS``) or, when the spec carries ``source``, the function ``name``
  of that source text (``workloads.from_source``, built once per job); its ``jax.jit``
  options (``static_argnums``, ``donate_argnums``, ... :data:`JIT_OPTIONS`) are passed
  on; with ``bind`` (a list of specs), the learner gets a :class:`BoundJit` that calls
  the jit with those hidden arguments appended.
- ``factory``: a zero-argument callable returning a fresh, uncompiled jit each time (same
  ``name``/``source`` and options as ``workload``).
- ``probe``: the calibrated spin (``seconds`` long); ``probe_args`` / ``probe_host_args``:
  its placed or NumPy arguments.
- ``probe_like``: a jit with workload ``name``'s signature and exact results whose program
  also runs the probe's spin (see :func:`with_spin`), warmed on ``warm`` when given.
- ``probe_factory``: ``make_fn()`` handing out fresh, uncompiled jits of the spin.

A call with any ``probe*`` argument records the spin's measured duration
(``probe_seconds``).
"""

from __future__ import annotations

import functools
import inspect
import sys
import time
import traceback
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import jax
import numpy as np

from syncgrade.child import reference, workloads
from syncgrade.child.recorder import DESIGNATE, NOTE, RESET, SEND, SET, Recorder

Spec = dict[str, Any]
ORIGINAL_PERF_COUNTER = time.perf_counter  # captured at import, before the timer hooks
# The grader's own steps (building arguments, the probe, encoding and sending frames) need
# CPython's default stack depth, whatever the learner set: ``sys.setrecursionlimit(45)`` is
# the learner's choice for their own code, never grader state they broke (a build that
# failed under it was reported as tampering). Bound at import, before any learner code.
GRADER_RECURSION_LIMIT = 1000
_GET_RECURSION_LIMIT = sys.getrecursionlimit
_SET_RECURSION_LIMIT = sys.setrecursionlimit

# Private copies of everything the builders use, taken when this module is imported (the
# child imports it before the instrumentation and before any learner code). A submission
# that clears ``workloads.WORKLOADS``, replaces ``workloads.put`` or ``jax.devices`` at
# import changes only the public names, not the arguments the grader builds. ``jax.jit``
# stays the live (instrumented) one on purpose: the workloads' calls must be recorded, and
# replacing it is caught as hook tampering.
_WORKLOADS: Mapping[str, Callable[..., Any]] = MappingProxyType(dict(workloads.WORKLOADS))
_SPIN: Callable[..., Any] = workloads.spin
_PUT: Callable[[Any], Any] = workloads.put
_WAIT: Callable[[Any], Any] = workloads.wait
_FROM_SOURCE: Callable[[str, str], Callable[..., Any]] = workloads.from_source
_INSTALL_FAULT: Callable[[str], None] = workloads.install_device_fault
_MEASURE_SPIN = workloads.measure_spin
# Public (tests patch it): how the probe times its spin loop, in its own program or alone.
TIME_SPIN = workloads.time_spin
_TIME_CALL = workloads.time_call
_DEVICES: Callable[[], Any] = jax.devices
_TREE_LEAVES: Callable[[Any], list[Any]] = jax.tree_util.tree_leaves
_DEFAULT_RNG = np.random.default_rng
_ONES = np.ones
_FLOAT32 = np.float32
_INT32 = np.int32
_ASARRAY = np.asarray
_FUNCTION_TYPE = types.FunctionType
_BARRIER: Callable[[Any], Any] = jax.lax.optimization_barrier
_TREE_MAP: Callable[..., Any] = jax.tree_util.tree_map
_ISSUBDTYPE: Callable[[Any, Any], bool] = jax.numpy.issubdtype
_INEXACT = jax.numpy.inexact
_ARRAY_TYPE = jax.Array
_SIGNATURE = inspect.signature

FACTORY_POOL = 64
"""How many fresh jits a ``factory`` spec's ``make_fn`` hands out as the grader's own
(each one's calls are recorded as a call of a grader-provided callable); later ones are
still fresh jits, recorded as the learner's own."""

REMEASURE_DIVISOR = 4  # the re-measure after a probe call runs 1/4 of the probe's steps

SPIN_KINDS = frozenset({"probe", "probe_args", "probe_host_args", "probe_like",
                        "probe_factory"})
"""The spec kinds built from the spin at its measured rate (as is a ``device`` spec with
``ready`` false: an array still computing)."""
KINDS = frozenset({
    "value", "host", "device", "tuple", "jax_device", "rng", "workload", "factory",
}) | SPIN_KINDS
"""The spec kinds :meth:`Harness.build` knows (the parent checks specs against this)."""


def needs_spin_rate(node: Any) -> bool:
    """Whether a job's calls (or any part of them) build something from the spin's
    measured rate: a probe, or a device array still computing (:data:`SPIN_KINDS`)."""
    if isinstance(node, dict):
        kind = node.get("kind")
        if kind in SPIN_KINDS or (kind == "device" and not node.get("ready", True)):
            return True
        return any(needs_spin_rate(value) for value in node.values())
    if isinstance(node, list):
        return any(needs_spin_rate(item) for item in node)
    return False


@dataclass
class Probe:
    fn: Callable[..., Any]
    host_args: tuple[np.ndarray, np.ndarray]
    seconds: float


@dataclass
class Harness:
    """Turns specs into live arguments for one job; caches the probe and the spin's
    rate."""

    recorder: Recorder
    inputs: dict[str, np.ndarray]
    probe: Probe | None = None
    probe_seconds: float | None = None
    rate: workloads.SpinRate | None = None
    """The spin's measured rate: from a warm pool child's warm-up (``workloads.prewarm_spin``,
    before the job existed), else measured when first needed."""
    _spin: Any = field(default=None, repr=False)
    _declared: dict[tuple[str, str], Callable[..., Any]] = field(default_factory=dict,
                                                                 repr=False)
    designated: list[Any] = field(default_factory=list, repr=False)
    """The callables built for the current call, in argument order: the grader's own,
    whose calls the trace tells apart from any other callable (``fn`` of a call)."""
    bound: list[Any] = field(default_factory=list, repr=False)
    """The arguments bound into the current call's :class:`BoundJit` callables: handed over
    ready like the learner's own arguments (the trace's ``Given``)."""

    def build(self, spec: Spec) -> Any:
        kind = spec["kind"]
        if kind not in KINDS:
            raise ValueError(f"unknown argument kind {kind!r}")
        builder: Callable[[Spec], Any] = getattr(Harness, "_build_" + kind).__get__(self)
        return builder(spec)

    def _build_value(self, spec: Spec) -> Any:
        return spec["value"]

    def _build_host(self, spec: Spec) -> np.ndarray:
        return self.inputs[spec["name"]].copy()

    def _build_device(self, spec: Spec) -> Any:
        array = _PUT(self.inputs[spec["name"]])
        if spec.get("ready", True):
            return _WAIT(array)
        return self._still_computing(array)

    def _build_tuple(self, spec: Spec) -> tuple[Any, ...]:
        return tuple(self.build(item) for item in spec["items"])

    def _build_jax_device(self, spec: Spec) -> Any:
        return _DEVICES()[0]

    def _build_rng(self, spec: Spec) -> np.random.Generator:
        return _DEFAULT_RNG(spec["seed"])

    def _workload(self, spec: Spec) -> Callable[..., Any]:
        """The workload a ``workload``/``factory`` spec names: built-in, or declared as
        source text in the spec (built once per job, then fresh copies)."""
        name = spec["name"]
        source = spec.get("source")
        if source is None:
            return _WORKLOADS[name]
        key = (name, source)
        if key not in self._declared:
            self._declared[key] = _FROM_SOURCE(name, source)
        return self._declared[key]

    def _build_workload(self, spec: Spec) -> Any:
        fn = jax.jit(_fresh_copy(self._workload(spec)), **jit_options(spec))
        self.designated.append(fn)
        bound = tuple(self.build(s) for s in spec.get("bind") or ())
        self.bound.extend(bound)
        if spec.get("warm") is not None:
            for leaf in _TREE_LEAVES(fn(*[self.build(s) for s in spec["warm"]], *bound)):
                _WAIT(leaf)
        return BoundJit(fn, bound) if bound else fn

    def _build_factory(self, spec: Spec) -> Callable[[], Any]:
        base = self._workload(spec)
        options = jit_options(spec)
        by_name = "static_argnames" in options or "donate_argnames" in options

        def fresh() -> Any:
            # A new function object each time, so its first call traces and compiles;
            # with options by name, one that carries the workload's signature (jax reads
            # it to find the named parameters).
            if by_name:
                return jax.jit(functools.wraps(base)(
                    lambda *args, **kwargs: base(*args, **kwargs)), **options)
            return jax.jit(lambda *args: base(*args), **options)

        return self._make_fn(fresh)

    def _make_fn(self, fresh: Callable[[], Any]) -> Callable[[], Any]:
        """A factory's ``make_fn``: the first :data:`FACTORY_POOL` of ``fresh()``'s jits
        are made here, before the call, so the core knows them as the grader's
        (DESIGNATE); later ones are made on demand."""
        pool = [fresh() for _ in range(FACTORY_POOL)]
        self.designated.extend(pool)
        handed = iter(pool)

        def make_fn() -> Any:
            made = next(handed, None)  # past the pool: still fresh, not the grader's
            return fresh() if made is None else made

        return make_fn

    def _build_probe(self, spec: Spec) -> Any:
        fn = self._probe(spec.get("seconds", 0.1)).fn
        self.designated.append(fn)
        return fn

    def _build_probe_like(self, spec: Spec) -> Any:
        # The probe's own spin jit is calibrated (and re-measured after the call) on the
        # same x and step count this program's spin runs.
        probe = self._probe(spec.get("seconds", 0.1))
        fn = jax.jit(with_spin(self._workload(spec), *probe.host_args))
        self.designated.append(fn)
        if spec.get("warm") is not None:
            warm = [self.build(s) for s in spec["warm"]]
            _wait_all(fn(*warm))
            # The spin inside this program need not run at the bare spin's rate: on a TPU
            # it ran 2.8x faster (4.0 ms against 11.2 ms for the same steps), so the
            # learner's waited calls lasted 30% of what the bare spin promised. One run of
            # the program itself, timed as the spin is, on the warm-up's (smaller)
            # arguments, bounds what a call takes; the probe's duration is the smaller of
            # the two (noise only lengthens a run: the minimum never overstates the work).
            took = _TIME_CALL(lambda: fn(*warm), ORIGINAL_PERF_COUNTER)
            probe.seconds = min(probe.seconds, took)
        return fn

    def _build_probe_factory(self, spec: Spec) -> Callable[[], Any]:
        self._probe(spec.get("seconds", 0.1))  # calibrated before the call, like probe_args

        def fresh() -> Any:
            # A new function object each time, so its first call traces and compiles.
            return jax.jit(_fresh_copy(_SPIN))

        return self._make_fn(fresh)

    def _build_probe_args(self, spec: Spec) -> tuple[Any, ...]:
        probe = self._probe(spec.get("seconds", 0.1))
        return tuple(_WAIT(_PUT(a)) for a in probe.host_args)

    def _build_probe_host_args(self, spec: Spec) -> tuple[np.ndarray, ...]:
        probe = self._probe(spec.get("seconds", 0.1))
        return tuple(a.copy() for a in probe.host_args)

    def _probe(self, seconds: float) -> Probe:
        """The probe: the spin at the step count that takes about ``seconds`` here, and
        an estimate of one run's duration, measured once more right away (arguments are
        built before recording starts) and lowered by every :meth:`remeasure_probe`."""
        if self.probe is None:
            rate = self._rate()
            steps = rate.steps_for(seconds)
            # The live jax.jit: recorded like any jit, and the same function as the
            # warm-up's, so it reuses that compilation.
            self.probe = Probe(fn=jax.jit(_SPIN), host_args=(rate.x, _ASARRAY(_INT32(steps))),
                               seconds=rate.estimate(steps))
            # A warm pool child measured the rate while it was idle, maybe while other
            # children were importing on the same cores; a run just before the learner's
            # call keeps D from resting only on runs far from the learner's own.
            self.remeasure_probe()
        return self.probe

    def _rate(self) -> workloads.SpinRate:
        """The spin's rate: a warm pool child's warm-up measured it before the job
        existed; otherwise it is measured now (a cold child, or a warm-up cut short)."""
        if self.rate is None:
            measured = _MEASURE_SPIN(jax.jit(_SPIN), ORIGINAL_PERF_COUNTER)
            assert measured is not None  # without ``stop`` a measurement always finishes
            self.rate = measured
        return self.rate

    def remeasure_probe(self) -> float:
        """The probe's duration after one more run, a quarter as long and scaled up to the
        probe's steps (never an underestimate, see ``SpinRate.estimate``): the smallest
        estimate seen so far. Noise only slows runs down, so the minimum is the best
        estimate of what the device really needs; runs just before and after the
        learner's call also catch a rate measured while the machine was busier than it
        is now."""
        assert self.probe is not None
        x, n = self.probe.host_args
        steps = int(n)
        short = max(1, steps // REMEASURE_DIVISOR)
        again = TIME_SPIN(self.probe.fn, x, short, ORIGINAL_PERF_COUNTER) * steps / short
        self.probe.seconds = min(self.probe.seconds, again)
        self.probe_seconds = self.probe.seconds
        return self.probe.seconds

    def _still_computing(self, array: Any) -> Any:
        """Return a copy of ``array`` that becomes ready only after ~50 ms of device work."""
        if self._spin is None:
            self._spin = jax.jit(
                lambda a, x, n: a + 0.0 * _SPIN(x, n)[0].astype(a.dtype)
            )
            _WAIT(self._spin(array, _ONES(4096, _FLOAT32), _INT32(1)))
        steps = _INT32(self._rate().steps_for(0.05))
        return self._spin(array, _PUT(_ONES(4096, _FLOAT32)), steps)


JIT_OPTIONS = ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames",
               "keep_unused", "inline")
"""The ``jax.jit`` options a workload spec may carry (``syncgrade.rubric.specs.JIT_OPTIONS``;
a test keeps the two equal)."""


def jit_options(spec: Spec) -> dict[str, Any]:
    """The ``jax.jit`` keyword arguments of a ``workload``/``factory`` spec: the options
    it carries (lists as tuples), nothing else."""
    return {key: tuple(value) if isinstance(value, list) else value
            for key, value in spec.items() if key in JIT_OPTIONS}


class BoundJit:
    """A grader-made jit handed over with hidden trailing arguments: ``fn(*args)`` calls
    ``jitted(*args, *bound)``, and ``lower``, ``trace`` and ``eval_shape`` append them too.

    exercise-4 hands ``compiled_predict(x, w)`` this way: the right and the subtly wrong
    function are one program whose behaviour comes from bound data, so ``jax.make_jaxpr``,
    ``.lower(...).as_text()`` and everything about the callable read the same in every
    setup; only the results differ. Every call is a call of ``jitted`` (a recorded jit the
    harness designated as the grader's), with the bound arrays among its inputs (placed and
    ready before the call). Name, qualname, docstring and ``__wrapped__`` are the
    workload's; the signature drops the bound parameters."""

    def __init__(self, jitted: Any, bound: tuple[Any, ...]) -> None:
        self._jitted = jitted
        self._bound = bound
        fun = jitted.__wrapped__
        self.__wrapped__ = fun
        self.__name__ = getattr(fun, "__name__", "predict")
        self.__qualname__ = getattr(fun, "__qualname__", self.__name__)
        self.__doc__ = getattr(fun, "__doc__", None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._jitted(*args, *self._bound, **kwargs)

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        return self._jitted.lower(*args, *self._bound, **kwargs)

    def trace(self, *args: Any, **kwargs: Any) -> Any:
        return self._jitted.trace(*args, *self._bound, **kwargs)

    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        return self._jitted.eval_shape(*args, *self._bound, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._jitted, name)

    @property
    def __signature__(self) -> Any:
        signature = _SIGNATURE(self.__wrapped__)
        kept = list(signature.parameters.values())[:-len(self._bound) or None]
        return signature.replace(parameters=kept)


def install_faults(call: Spec) -> None:
    """Install the device faults a call's ``jax_device`` specs ask for, before any of its
    arguments is built (a workload's warm-up then compiles on the faulty device too)."""
    specs = [*call.get("args", []), *call.get("kwargs", {}).values()]
    for spec in specs:
        if isinstance(spec, dict) and spec.get("kind") == "jax_device" and spec.get("fault"):
            _INSTALL_FAULT(spec["fault"])


def _fresh_copy(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A new function object with ``fn``'s code, globals, closure, name, qualname, module
    and docstring. Each grader call gets its own, so nothing about the function a learner
    receives (its ``id``, its repr's address) can be compared across calls to tell one
    grader setup from another (exercise-4's wrong setups)."""
    if not isinstance(fn, _FUNCTION_TYPE):
        return fn
    copy = _FUNCTION_TYPE(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__qualname__, copy.__module__, copy.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def _wait_all(result: Any) -> None:
    """Wait, with the original method, for every array of ``result``."""
    for leaf in _TREE_LEAVES(result):
        _WAIT(leaf)


def with_spin(base: Callable[..., Any], x: np.ndarray,
               n: np.ndarray) -> Callable[..., Any]:
    """``base`` (same name, docstring and signature) whose program also runs ``spin(x,
    n)``: each floating-point output ``y`` becomes ``y - 0.0 * s``, ``s`` the spin's first
    element. The spin of ones stays in (0, 1.0001], so ``0.0 * s`` is +0.0 and ``y - 0.0``
    is ``y`` bit for bit (signed zeros and infinities included; a NaN stays a NaN, its
    payload canonical on a GPU, and XLA flushes subnormals, as the workload's own last
    operation already does); XLA never folds ``0.0 * s`` for floats (it would be wrong
    for inf or NaN), so the spin is never dropped either.

    The optimization barrier ties the spin's ``x`` and ``n`` to the call's array inputs:
    they are never constants XLA could fold the loop over at compile time, and the loop is
    the plain spin's, trip count unknown, as ``Harness.remeasure_probe`` times it."""

    @functools.wraps(base)
    def like(*args: Any, **kwargs: Any) -> Any:
        inputs = [leaf for leaf in _TREE_LEAVES((args, kwargs))
                  if isinstance(leaf, _ARRAY_TYPE)]
        (spin_x, steps), _ = _BARRIER(((x, n), inputs))
        s = _SPIN(spin_x, steps)[0]

        def joined(y: Any) -> Any:
            dtype = getattr(y, "dtype", None)
            if dtype is None or not _ISSUBDTYPE(dtype, _INEXACT):
                return y
            return y - 0.0 * s.astype(dtype)

        return _TREE_MAP(joined, base(*args, **kwargs))

    return like


def check_signature(fn: Any, n_args: int, kw_names: list[str]) -> str | None:
    """``None`` if ``fn`` can be called with that many positional and these keyword
    arguments, else a short reason."""
    if not callable(fn):
        return f"is a {_type_name(type(fn))}, not a function"
    try:
        inspect.signature(fn).bind(*range(n_args), **{k: None for k in kw_names})
    except TypeError as exc:
        return _text(exc, "its parameters do not match")
    except BaseException:
        # ValueError: a builtin without a signature. Anything else: the learner's object
        # raised when asked for its signature. Either way, just try the call.
        return None
    return None


def run_call(harness: Harness, core: Any, ask: Callable[[Any], Any], call: Spec) -> None:
    """Run one job call on the main thread and send its frame through the sealed ``core``.

    The learner's function runs on the worker thread (``ask``); its value and error are
    encoded there too, so this thread never touches an object the learner made. Events are
    recorded between ``SET True`` and ``SET False`` and added to the frame by the core
    itself; this function never sees them."""
    recorder = harness.recorder
    # Each send holds the recorder's lock: a learner thread may still be inside the core
    # (see Recorder.__init__). Written out at each send: the core accepts a control step
    # only from the frame of a registered control function.
    lock = recorder._lock
    # Everything here but the learner's call runs with at least the grader's stack depth;
    # the learner's call, and whatever follows this one, with the learner's own limit.
    learner_limit = lift_recursion_limit()
    try:
        call_steps(harness, core, ask, call, lock, learner_limit)
    finally:
        restore_recursion_limit(learner_limit)


def lift_recursion_limit() -> int:
    """Raise the recursion limit to the grader's if the learner lowered it; return the
    learner's limit."""
    learner_limit = _GET_RECURSION_LIMIT()
    if learner_limit < GRADER_RECURSION_LIMIT:
        _SET_RECURSION_LIMIT(GRADER_RECURSION_LIMIT)
    return int(learner_limit)


def restore_recursion_limit(learner_limit: int) -> None:
    """Put the learner's lower recursion limit back (if this frame is deeper than it
    allows, CPython refuses; the grader's limit then stays, which only lets the learner's
    code recurse deeper than it asked)."""
    if learner_limit < GRADER_RECURSION_LIMIT:
        try:  # noqa: SIM105 (contextlib is one more global a learner could replace)
            _SET_RECURSION_LIMIT(learner_limit)
        except RecursionError:
            pass


def call_steps(harness: Harness, core: Any, ask: Callable[[Any], Any], call: Spec,
              lock: Any, learner_limit: int) -> None:
    """:func:`run_call`'s steps, with the grader's recursion limit in place (the learner's
    ``learner_limit`` only around the learner's call). Its code is a registered control
    code (the core accepts control steps from its frame, see ``__main__``)."""
    recorder = harness.recorder
    frame: dict[str, Any] = {"type": "call", "id": call["id"]}
    harness.designated = []
    harness.bound = []
    try:
        install_faults(call)
        args = [harness.build(s) for s in call.get("args", [])]
        kwargs = {k: harness.build(s) for k, s in call.get("kwargs", {}).items()}
    except Exception as exc:  # a grader fault (or grader state a learner broke)
        # A declared workload failing on its own code while its warm-up builds it
        # (``jnp.tahn``) is the exercise's mistake: said as the call's error with the
        # workload named, as when the learner's call runs it (the parent raises it as a
        # rubric error), never as grader state the learner broke.
        described = describe_error(exc, "")
        if described.get("workload") is not None:
            frame.update(ok=False, error=described)
        else:
            frame.update(ok=False, grader_error=f"{type(exc).__name__}: {exc}")
        with lock:
            core.send((SEND, frame, None))
        return
    uses_probe = any(str(spec.get("kind", "")).startswith("probe") for spec in call.get(
        "args", []))
    with lock:
        core.send((RESET,))
        core.send((DESIGNATE, harness.designated))
    if "attribute" in call:
        _ok, text = checked_reply(core, ask(("attribute", call["attribute"])), "encoded",
                                  lock)
        with lock:
            core.send((SEND, frame, text))
        return
    ready_inputs = _ready_arrays((args, kwargs, harness.bound))
    reference.clear()
    # Around every learner call, not only those the grader times itself: every list
    # interval-clean judges reads its load allowance and the watch's holds from it.
    watch = reference.StallWatch()
    start = ORIGINAL_PERF_COUNTER()
    with lock:
        core.send((SET, True))
    recorder.emit("given", arrays=[recorder.token(a) for a in ready_inputs])
    restore_recursion_limit(learner_limit)
    try:
        reply = ask(("call", call["function"], args, kwargs))
    finally:
        lift_recursion_limit()
        with lock:
            core.send((SET, False))
    frame["wall_s"] = ORIGINAL_PERF_COUNTER() - start
    del args, kwargs
    checked_reply(core, reply, "called", lock)
    if call.get("reference"):
        # Right after the learner's samples, on the same machine load: the grader's own
        # timing of the call (the sample-duration check).
        frame["reference"] = reference.reference_timings(call["reference"],
                                                         harness.designated)
    frame["stalls"] = watch.stop()
    frame["latest_wake_s"] = watch.latest_wake()
    frame["cpu_waits"] = watch.waits()
    frame["holds"] = watch.holds()
    frame["realtime_offset"] = watch.realtime_offset
    if uses_probe and harness.probe is not None:
        frame["probe_seconds"] = harness.remeasure_probe()
    _ok, text = checked_reply(core, ask(("encode",)), "encoded", lock)
    with lock:
        core.send((SEND, frame, text))
        core.send((RESET,))


def checked_reply(core: Any, reply: Any, tag: str, lock: Any) -> tuple[bool, str | None]:
    """``(ok, json text)`` of a worker reply ``(tag, (ok, text))``. Anything else means
    learner code put it in the worker's queue: a tampering note (sent holding ``lock``,
    the recorder's), and ``(False, None)``."""
    if (type(reply) is tuple and len(reply) == 2 and type(reply[0]) is str
            and str.__eq__(reply[0], tag) is True and type(reply[1]) is tuple
            and len(reply[1]) == 2 and type(reply[1][0]) is bool
            and type(reply[1][1]) is str):
        return reply[1][0], reply[1][1]
    if (type(reply) is tuple and len(reply) == 2 and type(reply[0]) is str
            and str.__eq__(reply[0], "fault") is True and type(reply[1]) is tuple
            and len(reply[1]) == 2 and type(reply[1][1]) is str):
        raise RuntimeError("the grader's worker failed: " + reply[1][1][:500])
    with lock:
        core.send((NOTE, "worker: a reply the grader's worker did not send"))
    return False, None


def _ready_arrays(tree: Any) -> list[Any]:
    """The JAX arrays in ``tree`` that are already complete."""
    leaves = jax.tree_util.tree_leaves(tree)
    return [leaf for leaf in leaves
            if isinstance(leaf, jax.Array) and workloads.is_ready(leaf)]


def describe_error(exc: BaseException, learner_file: str) -> dict[str, Any]:
    """Type, message and the innermost learner line of an exception, no grader frames.

    Never raises for anything the learner's exception does: a ``__str__``, ``__repr__``,
    ``__getattribute__`` or metaclass ``__name__`` that raises (or returns a str subclass)
    gives a placeholder for that part, and the type's real name and the line still come
    from the interpreter's own slots.
    """
    name = _type_name(type(exc))
    tb = _safe(lambda: _TRACEBACK_OF(exc), None)
    every = _safe(lambda: [f for f in traceback.extract_tb(tb) if f.filename == learner_file
                           or str.startswith(f.filename, _WORKLOAD_PREFIX)], [])
    frames = [f for f in every if f.filename == learner_file]
    line = _safe(lambda: frames[-1].lineno, None) if frames else None
    syntax_line = _safe(lambda: exc.lineno if isinstance(exc, SyntaxError)
                        and exc.filename == learner_file else None, None)
    if type(syntax_line) is int:
        line = syntax_line
    message = _text(exc, f"(the message could not be shown: {name}.__str__ failed)")
    text = _safe(lambda: "".join(traceback.format_list(frames[-5:])), "") + _safe(
        lambda: str.__str__("".join(traceback.format_exception_only(type(exc), exc))),
        f"{name}: {message}\n")
    described = {
        "type": name,
        "message": message[:500],
        "line": line if type(line) is int else None,
        "traceback": text[-4000:],
    }
    described.update(_safe(lambda: _workload_fault(exc, every, message), {}))
    return described


_WORKLOAD_PREFIX = workloads.SOURCE_FILE.split("{", 1)[0]
_NAME_ERRORS = (NameError, UnboundLocalError)


def _workload_fault(exc: BaseException, frames: list[Any], message: str) -> dict[str, Any]:
    """``{"workload": name, "workload_line": n}`` when ``exc`` is a declared workload's
    own mistake: raised with a declared workload's code as the innermost frame of the
    learner's file and the workloads', and a name that does not exist (``NameError``,
    or an attribute a module lacks: ``jnp.tanhh``), which no argument the learner passes
    can cause. Else ``{}`` (the learner's error, as before)."""
    if not frames or not str.startswith(frames[-1].filename, _WORKLOAD_PREFIX):
        return {}
    kind = type(exc)
    own = kind in _NAME_ERRORS or (kind is AttributeError
                                   and str.startswith(message, "module '"))
    if not own:
        return {}
    return {"workload": frames[-1].filename[len(_WORKLOAD_PREFIX):-1],
            "workload_line": frames[-1].lineno}


_TRACEBACK_OF = BaseException.__dict__["__traceback__"].__get__
_NAME_OF = type.__dict__["__name__"].__get__  # the class's own name, past any metaclass


def _type_name(cls: type) -> str:
    return _safe(lambda: str.__str__(_NAME_OF(cls)), "Exception")


def _text(obj: object, fallback: str) -> str:
    """``str(obj)`` as a plain ``str``, or ``fallback`` if the learner's ``__str__`` failed."""
    text: str = _safe(lambda: str.__str__(str(obj)), fallback)
    return text


def _safe(read: Callable[[], Any], fallback: Any) -> Any:
    """``read()``, or ``fallback`` if the learner's object made it raise."""
    try:
        return read()
    except BaseException:  # a learner's __str__ may raise anything, SystemExit included
        return fallback
