"""Named JAX workloads the grader hands to learner functions, and the calibrated probe.

These live on the child side because they must run next to the learner's code; they hold
no expected values. The parent names a workload in the job and computes its own NumPy
reference. A rubric may also declare a workload as source text
(``syncgrade.rubric.specs.workload(name, source=...)``): :func:`from_source` builds it
here, from the job, so a new exercise needs no change to the child.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from syncgrade.child.jax_private import hlo as _hlo
from syncgrade.child.jax_private import mlir as _mlir
from syncgrade.child.jax_private import tanh_p as _TANH_P
from syncgrade.child.jax_private import xc

PerfCounter = Callable[[], float]

DEVICE_FAULTS = frozenset({"bfloat16-tanh"})
"""The device faults :func:`install_device_fault` knows (``syncgrade.rubric.specs`` lists
them too: the parent never imports jax)."""


def predict(x: Any, w: Any) -> Any:
    return jnp.tanh(x @ w)


def _scaled_predict(scale: float) -> Callable[..., Any]:
    """``tanh(x @ w) * scale``, as a function that looks exactly like every other one this
    factory makes: the same code object, name, qualname, module, docstring and signature.

    The right one (``scale=1.0``: multiplying by one is exact, so the result equals
    :func:`predict`'s bit for bit) and the subtly wrong one (``1 + 1e-3``) differ in their
    programs' constants. exercise-4 no longer uses them: it binds its scale as hidden data
    (``syncgrade.rubric.specs.workload(..., bind=...)``), so its programs are one."""

    def predict(x: Any, w: Any) -> Any:
        return jnp.tanh(x @ w) * scale

    predict.__qualname__ = "predict"
    return predict


# The right function and a subtly wrong one (a 1e-3 relative error).
predict_exact = _scaled_predict(1.0)
predict_off_by_a_little = _scaled_predict(1.0 + 1e-3)


def energy(a: Any, b: Any) -> Any:
    return jnp.sum((a @ b) ** 2, axis=1)


def spin(x: Any, n: Any) -> Any:
    """A pure-compute loop of ``n`` steps. Over 1024 elements it costs more than 1000
    flops, so XLA:CPU runs it asynchronously (cheaper programs run inline at dispatch)."""
    return jax.lax.while_loop(
        lambda c: c[0] < n, lambda c: (c[0] + 1, jnp.sin(c[1]) * 1.0001), (0, x)
    )[1]


WORKLOADS: dict[str, Callable[..., Any]] = {
    "predict": predict,
    "predict_exact": predict_exact,
    "predict_off_by_a_little": predict_off_by_a_little,
    "energy": energy,
    "spin": spin,
}

PROBE_ELEMENTS = 4096

_COMPILE = compile
_EXEC = exec
SOURCE_FILE = "<workload {name}>"
"""The file name a declared workload's code runs under (its frames' ``filename``): how
the child tells the workload's own failure from the learner's
(``harness.describe_error``)."""
_FUNCTION = type(predict)


def from_source(name: str, source: str) -> Callable[..., Any]:
    """The function ``name`` defined by ``source``, a rubric's declared workload.

    ``source`` runs in a namespace of its own holding ``jax``, ``jnp`` (``jax.numpy``),
    ``lax`` (``jax.lax``) and ``np`` (``numpy``): the names
    ``syncgrade.rubric.specs.WORKLOAD_GLOBALS`` documents. ``compile`` and ``exec`` are the
    builtins captured when this module was imported (before any learner code). Raises
    ``ValueError`` when ``name`` is not a function of ``source``: a rubric fault the
    parent's validation catches first."""
    namespace: dict[str, Any] = {"jax": jax, "jnp": jnp, "lax": jax.lax, "np": np,
                                 "__name__": f"syncgrade_workload_{name}"}
    _EXEC(_COMPILE(source, SOURCE_FILE.format(name=name), "exec"), namespace)
    fn = namespace.get(name)
    if type(fn) is not _FUNCTION:
        raise ValueError(f"the declared workload source defines no function {name!r}")
    return fn


def _to_bfloat16(x: Any) -> Any:
    """``x`` rounded to bfloat16's 8 exponent and 7 mantissa bits, in its own type."""
    return _hlo.reduce_precision(x, _mlir.i32_attr(8), _mlir.i32_attr(7))


def _bfloat16_tanh(ctx: Any, x: Any, **_params: Any) -> Any:
    # tanh of the input rounded to bfloat16, rounded to bfloat16, in the input's type.
    # An explicit reduce_precision, not a convert to bfloat16 and back: XLA may drop such
    # a pair of converts (it allows excess precision by default), and on a TPU it did:
    # the faulty exercise-4 program came out as close to NumPy as the right one, so no
    # check could catch it (docs/accelerators.md). reduce_precision is kept on every
    # backend and rounds to nearest even as the converts did.
    del ctx
    return [_to_bfloat16(_hlo.tanh(_to_bfloat16(x)))]


def install_device_fault(fault: str) -> None:
    """Make this process's JAX device compute slightly wrong: for ``"bfloat16-tanh"``,
    every ``tanh`` that JAX lowers from now on (a jitted program's, an eager
    ``jnp.tanh``'s) is computed in bfloat16, as some accelerators compute transcendentals
    (up to ~0.4% relative error for float32). NumPy is untouched.

    exercise-4's ``wrong-device`` setup: the right ``compiled_predict`` and the right
    weights on a device whose arithmetic is off, so a reference computed with JAX on the
    same device shares the error and only a NumPy reference on the host catches it. The
    jaxpr of every function is unchanged (the primitive is still ``tanh``); the lowered
    program of every function, the learner's own too, converts around its ``tanh``. A
    fresh child runs each such call (``Exercise.isolate_calls``): the fault lasts as
    long as the process. Raises ``ValueError`` for a fault it does not know."""
    if fault not in DEVICE_FAULTS:
        raise ValueError(f"unknown device fault {fault!r}")
    for platform in ("cpu", "cuda", "rocm", "tpu"):
        try:  # noqa: SIM105 (contextlib is one more global a learner could replace)
            _mlir.register_lowering(_TANH_P, _bfloat16_tanh, platform=platform)
        except NotImplementedError:  # a platform this jaxlib does not know
            pass


# The grader's own waits use the originals, captured before any learner code runs: a
# submission that replaces block_until_ready must not be able to break calibration.
_WAIT: Callable[[Any], Any] = xc.ArrayImpl.__dict__["block_until_ready"]
MAX_STEPS = 2**30


_PUT: Callable[..., Any] = jax.device_put
# Captured at import too: the process's CPU clock, and which backend runs the spin.
_PROCESS_TIME: Callable[[], float] = time.process_time
_DEFAULT_BACKEND: Callable[[], str] = jax.default_backend
_IS_READY: Callable[[Any], bool] = xc.ArrayImpl.__dict__["is_ready"]
_TREE_LEAVES: Callable[[Any], list[Any]] = jax.tree_util.tree_leaves


def is_ready(array: Any) -> bool:
    """Whether ``array`` is complete, with the original method (never on a deleted array:
    that segfaults)."""
    return not array.is_deleted() and bool(_IS_READY(array))


def put(value: Any) -> Any:
    """Place ``value`` on the default device with the original ``jax.device_put``."""
    return _PUT(value)


def wait(array: Any) -> Any:
    """Block until ``array`` is ready, with the original jaxlib method."""
    return _WAIT(array)


def time_spin(jitted_spin: Callable[..., Any], x: np.ndarray, steps: int,
              clock: PerfCounter, *, _put: Callable[..., Any] = _PUT,
              _wait: Callable[[Any], Any] = _WAIT,
              _cpu_clock: Callable[[], float] = _PROCESS_TIME,
              _backend: Callable[[], str] = _DEFAULT_BACKEND) -> float:
    """Seconds one completed run of the spin takes, inputs placed and ready first.

    On the CPU backend, the shorter of the run's wall time and the CPU time the whole
    process used meanwhile. The spin runs on one thread, so its CPU time is the work
    itself: the same on a quiet machine (measured: 1.00 of the wall time) and on a busy
    one, where the wall time grows with every process competing for the cores. A run
    timed while other processes took the cores can then no longer make the grader think
    the work is longer than a learner's run in a quiet moment shows it to be (a correct
    wait once failed ``covers-device-work`` that way). The CPU time can only be too long
    (other threads of the process count too), never shorter than the work. On another
    backend the device does the work and the process's CPU time says nothing about it:
    the wall time only.

    The originals are bound as defaults, not looked up in this module's globals when
    called: code that replaced ``workloads.put``, ``time.process_time`` or
    ``jax.default_backend`` cannot change the grader's calibration."""
    device_x = _wait(_put(x))
    n = _wait(_put(np.int32(steps)))
    return time_call(lambda: jitted_spin(device_x, n), clock, _wait=_wait,
                     _cpu_clock=_cpu_clock, _backend=_backend)


def time_call(call: Callable[[], Any], clock: PerfCounter, *,
              _wait: Callable[[Any], Any] = _WAIT,
              _cpu_clock: Callable[[], float] = _PROCESS_TIME,
              _backend: Callable[[], str] = _DEFAULT_BACKEND,
              _leaves: Callable[[Any], list[Any]] = _TREE_LEAVES) -> float:
    """Seconds one ``call()`` takes until every array of its result is ready: as
    :func:`time_spin` times the spin (on the CPU backend the shorter of the wall time and
    the process's CPU time, elsewhere the wall time), for a program that runs the spin
    with other work (``harness.with_spin``). Its arguments must be ready beforehand."""
    on_cpu = _backend() == "cpu"
    used_before = _cpu_clock()
    start = clock()
    for leaf in _leaves(call()):
        _wait(leaf)
    wall = clock() - start
    used = _cpu_clock() - used_before
    return min(wall, used) if on_cpu else wall


@dataclass(frozen=True)
class SpinRate:
    """How fast :func:`spin` runs here: over ``x``, ``steps`` steps took ``seconds`` (the
    faster of two completed runs at exactly that count, each ~10-40 ms, as
    :func:`time_spin` times them)."""

    x: np.ndarray
    steps: int
    seconds: float

    def steps_for(self, seconds: float) -> int:
        """The step count whose run takes about ``seconds`` at this rate."""
        return min(MAX_STEPS, max(1, int(self.steps * seconds / max(self.seconds, 1e-9))))

    def estimate(self, steps: int) -> float:
        """What a run of ``steps`` steps takes at this rate. Scaled from a shorter run,
        never an underestimate of a real run: the measured run's fixed cost (dispatch,
        the wait) is scaled up along with its steps."""
        return self.seconds * steps / max(self.steps, 1)


FIRST_STEPS = 200
"""Where the rate's doubling search starts, unless told a better start (never below)."""


def measure_spin(
    jitted_spin: Callable[..., Any], clock: PerfCounter, *,
    stop: Callable[[], bool] | None = None, first_steps: int = FIRST_STEPS,
    _time_spin: Callable[..., float] = time_spin,
) -> SpinRate | None:
    """Compile the spin and measure its rate: the step count, from ``first_steps`` (at
    least :data:`FIRST_STEPS`), is doubled until one run takes at least 10 ms, then the
    faster of that run and one more is kept. A child forked from a zygote starts where the
    zygote's own measurement ended (``spin_executable.first_steps``): the shorter runs
    before it only found that count again. Where it starts changes only how many runs it
    takes: the rate kept is always that of the first count whose run took 10 ms or more.

    ``jitted_spin`` must be a grader-made jit of :func:`spin` (a warm pool child's warm-up
    uses the plain ``jax.jit``; the compiled program is shared with the harness's recorded
    jit of the same function). ``clock`` must be the original ``time.perf_counter`` (the
    grader's own timings are not learner intervals). ``stop`` is asked before every run;
    when it answers true the measurement is abandoned and ``None`` returned (a warm pool
    child stops the moment its job arrives). Without ``stop`` it always returns a rate.
    """
    x = np.ones((PROBE_ELEMENTS,), np.float32)

    def run(steps: int) -> float | None:
        if stop is not None and stop():
            return None
        return _time_spin(jitted_spin, x, steps, clock)

    if run(10) is None:  # compiles
        return None
    steps = min(max(first_steps, FIRST_STEPS), 2**28)
    elapsed = run(steps)
    # Doubling, not quadrupling: the first run past 10 ms is at most about 20 ms, not 40,
    # and it is run twice (every grading child measures, so this is its CPU time).
    while elapsed is not None and elapsed < 0.01 and steps < 2**28:
        steps *= 2
        elapsed = run(steps)
    if elapsed is None:
        return None
    again = run(steps)  # one slow run must not halve the probe
    if again is None:
        return None
    return SpinRate(x=x, steps=steps, seconds=min(elapsed, again))


def prewarm_spin(stop: Callable[[], bool], first_steps: int = FIRST_STEPS) -> SpinRate | None:
    """:func:`measure_spin` with the plain ``jax.jit`` and ``time.perf_counter``, for a
    warm pool child before any job or learner code exists (nothing is instrumented yet);
    ``None`` when ``stop`` answered true first."""
    import time

    return measure_spin(jax.jit(spin), time.perf_counter, stop=stop, first_steps=first_steps)
