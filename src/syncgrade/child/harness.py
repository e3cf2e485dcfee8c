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
  warmed on ``warm`` specs when given.
- ``factory``: a zero-argument callable returning a fresh, uncompiled jit each time.
- ``probe``: the calibrated spin (``seconds`` long); ``probe_args`` / ``probe_host_args``:
  its placed or NumPy arguments.
"""

from __future__ import annotations

import inspect
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from syncgrade.child import workloads
from syncgrade.child.recorder import Recorder
from syncgrade.child.values import encode

Spec = dict[str, Any]
ORIGINAL_PERF_COUNTER = time.perf_counter  # captured at import, before the timer hooks


@dataclass
class Probe:
    fn: Callable[..., Any]
    host_args: tuple[np.ndarray, np.ndarray]
    seconds: float


@dataclass
class Harness:
    """Turns specs into live arguments for one job; caches the probe."""

    recorder: Recorder
    inputs: dict[str, np.ndarray]
    probe: Probe | None = None
    probe_seconds: float | None = None
    _spin: Any = field(default=None, repr=False)

    def build(self, spec: Spec) -> Any:
        kind = spec["kind"]
        builder = getattr(self, "_build_" + kind, None)
        if builder is None:
            raise ValueError(f"unknown argument kind {kind!r}")
        return builder(spec)

    def _build_value(self, spec: Spec) -> Any:
        return spec["value"]

    def _build_host(self, spec: Spec) -> np.ndarray:
        return self.inputs[spec["name"]].copy()

    def _build_device(self, spec: Spec) -> Any:
        array = workloads.put(self.inputs[spec["name"]])
        if spec.get("ready", True):
            return workloads.wait(array)
        return self._still_computing(array)

    def _build_tuple(self, spec: Spec) -> tuple[Any, ...]:
        return tuple(self.build(item) for item in spec["items"])

    def _build_jax_device(self, spec: Spec) -> Any:
        return jax.devices()[0]

    def _build_rng(self, spec: Spec) -> np.random.Generator:
        return np.random.default_rng(spec["seed"])

    def _build_workload(self, spec: Spec) -> Any:
        fn = jax.jit(workloads.WORKLOADS[spec["name"]])
        if spec.get("warm") is not None:
            for leaf in jax.tree_util.tree_leaves(fn(*[self.build(s) for s in spec["warm"]])):
                workloads.wait(leaf)
        return fn

    def _build_factory(self, spec: Spec) -> Callable[[], Any]:
        base = workloads.WORKLOADS[spec["name"]]

        def make_fn() -> Any:
            # A new function object each time, so its first call traces and compiles.
            return jax.jit(lambda *args: base(*args))

        return make_fn

    def _build_probe(self, spec: Spec) -> Any:
        return self._probe(spec.get("seconds", 0.1)).fn

    def _build_probe_args(self, spec: Spec) -> tuple[Any, ...]:
        probe = self._probe(spec.get("seconds", 0.1))
        return tuple(workloads.wait(workloads.put(a)) for a in probe.host_args)

    def _build_probe_host_args(self, spec: Spec) -> tuple[np.ndarray, ...]:
        probe = self._probe(spec.get("seconds", 0.1))
        return tuple(a.copy() for a in probe.host_args)

    def _probe(self, seconds: float) -> Probe:
        if self.probe is None:
            fn = jax.jit(workloads.spin)
            x, n, measured = workloads.calibrate_spin(fn, seconds, ORIGINAL_PERF_COUNTER)
            self.probe = Probe(fn=fn, host_args=(x, np.asarray(n)), seconds=measured)
            self.probe_seconds = measured
        return self.probe

    def remeasure_probe(self) -> float:
        """The fastest probe run seen so far, after one more run (noise only slows runs
        down, so the minimum is the best estimate of what the device really needs)."""
        assert self.probe is not None
        x, n = self.probe.host_args
        runs = [workloads.time_spin(self.probe.fn, x, int(n), ORIGINAL_PERF_COUNTER)
                for _ in range(1)]
        self.probe.seconds = min(self.probe.seconds, *runs)
        self.probe_seconds = self.probe.seconds
        return self.probe.seconds

    def _still_computing(self, array: Any) -> Any:
        """Return a copy of ``array`` that becomes ready only after ~50 ms of device work."""
        if self._spin is None:
            self._spin = jax.jit(
                lambda a, x, n: a + 0.0 * workloads.spin(x, n)[0].astype(a.dtype)
            )
            workloads.wait(self._spin(array, np.ones(4096, np.float32), np.int32(1)))
        steps = np.int32(max(1, int(self._steps_for(0.05))))
        return self._spin(array, workloads.put(np.ones(4096, np.float32)), steps)

    def _steps_for(self, seconds: float) -> float:
        probe = self._probe(0.1)
        return float(probe.host_args[1]) * seconds / max(probe.seconds, 1e-9)


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


def run_call(
    harness: Harness, namespace: dict[str, Any], call: Spec, learner_file: str
) -> dict[str, Any]:
    """Run one job call and return its frame (events, encoded value or error)."""
    recorder = harness.recorder
    frame: dict[str, Any] = {"type": "call", "id": call["id"]}
    try:
        args = [harness.build(s) for s in call.get("args", [])]
        kwargs = {k: harness.build(s) for k, s in call.get("kwargs", {}).items()}
    except Exception as exc:  # a grader fault, not the learner's
        frame.update(ok=False, grader_error=f"{type(exc).__name__}: {exc}")
        return frame
    uses_probe = any(str(spec.get("kind", "")).startswith("probe") for spec in call.get(
        "args", []))
    recorder.reset()
    if "attribute" in call:
        target = namespace.get(call["attribute"], _MISSING)
        frame.update(ok=target is not _MISSING, value=encode(target) if target is not _MISSING
                     else None, events=[])
        return frame
    fn = namespace[call["function"]]
    ready_inputs = _ready_arrays((args, kwargs))
    start = ORIGINAL_PERF_COUNTER()
    recorder.enabled = True
    recorder.emit("given", arrays=[recorder.token(a) for a in ready_inputs])
    try:
        value = fn(*args, **kwargs)
        error = None
    except BaseException as exc:  # SystemExit and KeyboardInterrupt are learner faults too
        value, error = None, describe_error(exc, learner_file)
    finally:
        recorder.enabled = False
    frame["wall_s"] = ORIGINAL_PERF_COUNTER() - start
    if uses_probe and harness.probe is not None:
        frame["probe_seconds"] = harness.remeasure_probe()
    frame["events"] = recorder.events
    frame["ok"] = error is None
    frame["error"] = error
    frame["value"] = encode(value) if error is None else None
    recorder.reset()
    return frame


_MISSING = object()


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
