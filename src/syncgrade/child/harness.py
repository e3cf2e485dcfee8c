"""Build the arguments a job asks for and run one learner call under the recorder.

A job names its arguments as small data specs (``{"kind": "device", "name": "x"}``), so a
rubric stays data-like and the child never sees expected values. Spec kinds:

- ``value``: a JSON scalar, passed as is.
- ``host``: the NumPy array ``name`` from the job's inputs file.
- ``device``: that array placed on the default device; ``ready: false`` hands it over while
  still being computed (to test that the learner waits for inputs).
- ``tuple``: a tuple of ``items`` specs.
- ``jax_device``: the default device.
- ``rng``: ``np.random.default_rng(seed)``.
- ``workload``: ``jax.jit`` of a named workload (recorded like any jit), compiled and
  warmed on ``warm`` specs when given. The workload is a built-in one
  (``workloads.WORKLOADS``) or, when the spec carries ``source``, the function ``name``
  of that source text (``workloads.from_source``, built once per job); ``static_argnums``
  is passed to ``jax.jit``.
- ``factory``: a zero-argument callable returning a fresh, uncompiled jit each time (same
  ``name``/``source``/``static_argnums`` as ``workload``).
- ``probe``: the calibrated spin (``seconds`` long); ``probe_args`` / ``probe_host_args``:
  its placed or NumPy arguments.
"""

from __future__ import annotations

import inspect
import time
import traceback
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import jax
import numpy as np

from syncgrade.child import workloads
from syncgrade.child.recorder import NOTE, RESET, SEND, SET, Recorder

Spec = dict[str, Any]
ORIGINAL_PERF_COUNTER = time.perf_counter  # captured at import, before the timer hooks

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
_MEASURE_SPIN = workloads.measure_spin
_TIME_SPIN = workloads.time_spin
_DEVICES: Callable[[], Any] = jax.devices
_TREE_LEAVES: Callable[[Any], list[Any]] = jax.tree_util.tree_leaves
_DEFAULT_RNG = np.random.default_rng
_ONES = np.ones
_FLOAT32 = np.float32
_INT32 = np.int32
_ASARRAY = np.asarray
_FUNCTION_TYPE = types.FunctionType

REMEASURE_DIVISOR = 4  # the re-measure after a probe call runs 1/4 of the probe's steps

KINDS = frozenset({
    "value", "host", "device", "tuple", "jax_device", "rng", "workload", "factory", "probe",
    "probe_args", "probe_host_args",
})
"""The spec kinds :meth:`Harness.build` knows (the parent checks specs against this)."""


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
        static = tuple(spec.get("static_argnums") or ())
        fn = jax.jit(_fresh_copy(self._workload(spec)), static_argnums=static)
        if spec.get("warm") is not None:
            for leaf in _TREE_LEAVES(fn(*[self.build(s) for s in spec["warm"]])):
                _WAIT(leaf)
        return fn

    def _build_factory(self, spec: Spec) -> Callable[[], Any]:
        base = self._workload(spec)
        static = tuple(spec.get("static_argnums") or ())

        def make_fn() -> Any:
            # A new function object each time, so its first call traces and compiles.
            return jax.jit(lambda *args: base(*args), static_argnums=static)

        return make_fn

    def _build_probe(self, spec: Spec) -> Any:
        return self._probe(spec.get("seconds", 0.1)).fn

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
        again = _TIME_SPIN(self.probe.fn, x, short, ORIGINAL_PERF_COUNTER) * steps / short
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


def check_signature(fn: Any, n_args: int, kw_names: list[str]) -> str | None:
    """``None`` if ``fn`` can be called with that many positional and these keyword
    arguments, else a short reason."""
    if not callable(fn):
        return f"is a {type(fn).__name__}, not a function"
    try:
        inspect.signature(fn).bind(*range(n_args), **{k: None for k in kw_names})
    except TypeError as exc:
        return str(exc)
    except ValueError:
        return None  # builtins without signatures: just try the call
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
    frame: dict[str, Any] = {"type": "call", "id": call["id"]}
    try:
        args = [harness.build(s) for s in call.get("args", [])]
        kwargs = {k: harness.build(s) for k, s in call.get("kwargs", {}).items()}
    except Exception as exc:  # a grader fault (or grader state a learner broke)
        frame.update(ok=False, grader_error=f"{type(exc).__name__}: {exc}")
        with lock:
            core.send((SEND, frame, None))
        return
    uses_probe = any(str(spec.get("kind", "")).startswith("probe") for spec in call.get(
        "args", []))
    with lock:
        core.send((RESET,))
    if "attribute" in call:
        _ok, text = checked_reply(core, ask(("attribute", call["attribute"])), "encoded",
                                  lock)
        with lock:
            core.send((SEND, frame, text))
        return
    ready_inputs = _ready_arrays((args, kwargs))
    start = ORIGINAL_PERF_COUNTER()
    with lock:
        core.send((SET, True))
    recorder.emit("given", arrays=[recorder.token(a) for a in ready_inputs])
    try:
        reply = ask(("call", call["function"], args, kwargs))
    finally:
        with lock:
            core.send((SET, False))
    frame["wall_s"] = ORIGINAL_PERF_COUNTER() - start
    del args, kwargs
    checked_reply(core, reply, "called", lock)
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
    """Type, message and the innermost learner line of an exception, no grader frames."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == learner_file]
    if isinstance(exc, SyntaxError) and exc.filename == learner_file:
        line: int | None = exc.lineno
    else:
        line = frames[-1].lineno if frames else None
    text = "".join(traceback.format_list(frames[-5:])) + "".join(
        traceback.format_exception_only(type(exc), exc)
    )
    return {
        "type": type(exc).__name__,
        "message": str(exc)[:500],
        "line": line,
        "traceback": text[-4000:],
    }
