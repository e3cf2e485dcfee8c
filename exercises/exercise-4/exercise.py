"""exercise-4 — Check an independent NumPy result first (changed workload).

``changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats)`` is called
three times, each with a ``compiled_predict`` warmed for a smaller row count only, so the
learner's new shape compiles inside their code:

- ``main``: the right ``tanh(x @ w)``; every check but ``verification-catches-errors``
  reads this call. The reference uses the input the hidden-seed ``rng`` produces.
- ``wrong-function``: ``compiled_predict`` is off by 1e-3 relative on every row but the
  first ``EXACT_ROWS``: caught at atol=rtol=2e-5, not at atol=1e-1, and not by a check
  of the head of the result only (``out[:5]``).
- ``wrong-device``: the right function and weights on a device that computes ``tanh`` in
  bfloat16 (``s.jax_device(fault="bfloat16-tanh")``, up to ~0.4% off): a reference
  computed with JAX on the same device shares the error; only NumPy on the host catches
  it (and a loose atol=1e-1 does not).

The three setups are indistinguishable except through the values of the result, so only
an independent reference of the result catches both wrong ones, and only a NumPy one
catches the wrong device:

- ``w`` equals ``w_host`` bit for bit in every setup: comparing them tells nothing.
- ``compiled_predict`` is one program, ``predict(x, w, one, exact_rows, scale) =
  tanh(x @ w) * where(row < exact_rows, one, scale)``, handed over with ``one``,
  ``exact_rows`` and ``scale`` bound as hidden device arguments (``s.workload(...,
  bind=...)``, a ``BoundJit`` in the child): ``scale`` is ones in the right setups
  (exact: the result is ``tanh(x @ w)`` bit for bit), ``1 + 1e-3`` in
  ``wrong-function``. Its jaxpr, its lowered text (no constant), its name, signature and
  repr are the same in every setup.
- The wrong device changes the values every ``tanh`` JAX computes in that child, the
  learner's own ``jnp.tanh`` and jitted references included, and nothing NumPy computes.

Both wrong calls must raise AssertionError; they are left out of ``runs`` for that reason.
Each call runs in a fresh child. What remains observable: the bound arrays, for code that
digs into the callable's private attributes, and, on the wrong device, a
``reduce_precision`` on each side of the ``tanh`` in the lowered text of every program
(the learner's own too).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from syncgrade.rubric import (
    Check,
    CheckSpec,
    Exercise,
    GraderCall,
    Required,
    Samples,
    tolerance,
    verification_catches_errors,
)
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s

REPEATS = 5  # every call, right or wrong: a different count would tell them apart
ROWS = 1408  # not the lesson's 96, and enough work (~1 ms) to run asynchronously
WARM_ROWS = 40  # compiled_predict arrives compiled for this row count only
FEATURES, OUTPUTS = 48, 384
# The learner checks a float32 JAX result against a float32 NumPy result at atol=rtol=2e-5.
# Worst case over summation orders (rubric/tolerance.py), each is within
# gamma_48 * (|x| @ |w|) of x @ w before tanh, plus 32 ulp of 1.0 for tanh: with unit-scale
# weights two right results could differ by 14x that tolerance. Weights scaled by 2**-5
# (exact in float32) keep the worst case at 0.91x of it for every element, while the wrong
# setups still miss it by 13x or more (tests/rubric/test_tolerance.py, test_exercise_4_setups.py).
W_SCALE = 2.0**-5
SEED = 4_402_617
RESULT = (1,)
SAMPLES = (2,)
DRAWN = {"drawn": (0,), "drawn_reference": "larger_host",
         "draw": "rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)"}
"""The input the learner draws and returns (``larger_host``), the reference input the
``rng`` handed over gives, and the statement's draw: a result from another draw (the
lesson's 96 rows, a generator of one's own) gets a hint quoting that draw."""


OFF_BY = 1.0 + 1e-3  # the wrong function's scale
EXACT_ROWS = 16
"""The wrong function is exact on its first ``EXACT_ROWS`` rows and off on every later
row: a learner's check of the head of the result only (``out[:5]``, ``out[0]``,
``out.ravel()[:10]``) is no check of the result, and must miss it. A check that reads any
later row sees the same 0.1% error as before (the right setups stay exact everywhere)."""

# The one program every setup's compiled_predict runs: the bound ``scale`` is all ones in
# the right setups (multiplying by one is exact) and OFF_BY in the wrong function, which
# spares its first ``exact_rows`` rows (bound too, as ``one``, all ones: the lowered text
# holds no constant that tells the setups' mechanism).
# Full float32 precision on every backend: at JAX's default precision a TPU rounds the
# float32 inputs of a matrix product to bfloat16 (2.7e-3 off on the chip,
# docs/accelerators.md), and the learner's own NumPy check at atol=rtol=2e-5 would reject
# the right setup. On the CPU ``highest`` is what the default already does, bit for bit.
# ``product`` is what the calibrated probe runs: every call the learner's check sees
# computes the same values (a probe at the default precision once failed the right setup
# on the chip). Measured there at ``highest``: the right result needs atol=rtol=1.35e-5,
# nearly all of it the TPU's float32 tanh (benchmarks/exercise4_error.py).
PREDICT = """
def product(x, w):
    return jnp.tanh(jnp.matmul(x, w, precision=lax.Precision.HIGHEST))


def predict(x, w, one, exact_rows, scale):
    head = jnp.arange(x.shape[0])[:, None] < exact_rows
    return product(x, w) * jnp.where(head, one, scale)
"""
PROBED = "product"  # the declared function the probe's program runs


def make_inputs() -> dict[str, np.ndarray]:
    """Hidden weights (other seed and shapes than the lesson's), the smaller input
    ``compiled_predict`` is warmed on, and the arrays bound into it: the two scales,
    ``one`` and ``exact_rows`` (see ``EXACT_ROWS``)."""
    rng = np.random.default_rng(4_402_609)
    w = (rng.normal(size=(FEATURES, OUTPUTS)) * W_SCALE).astype(np.float32)
    return {
        "w": w,
        "x_small": rng.normal(size=(WARM_ROWS, FEATURES)).astype(np.float32),
        "scale": np.ones((OUTPUTS,), np.float32),
        "scale_off": np.full((OUTPUTS,), OFF_BY, np.float32),
        "one": np.ones((OUTPUTS,), np.float32),
        "exact_rows": np.array(EXACT_ROWS, np.int32),
    }


def larger_input(rows: int = ROWS, seed: int = SEED) -> np.ndarray:
    """The input the learner's ``rng`` (``default_rng(seed)``) produces, per the contract."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(rows, FEATURES)).astype(np.float32)


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    larger = larger_input()
    return {"predict": tolerance.tanh_matmul(larger, inputs["w"]), "larger_host": larger}


MAIN = "main"
PROBE = "probe"
PROBE_SECONDS = 0.02  # as exercise-1: a no-wait sample is ~0.1 ms, far below 35% of it (7 ms)
WRONG_FUNCTION = "wrong-function"
WRONG_DEVICE = "wrong-device"


def _call(call_id: str, scale: str = "scale", fault: str | None = None,
          probe: bool = False) -> GraderCall:
    """One call of ``changed_workload``. The right and the wrong setups differ only in
    the bound ``scale`` and the device ``fault``, whose differences show only in the
    values computed: the same program, repeats, rows, seed, weights, device and argument
    kinds (``tests/rubric/test_exercise_4_setups.py`` inspects them, the jaxpr and the
    lowered text included, from inside a submission)."""
    warm = [s.device("x_small"), s.device("w")]
    return GraderCall(call_id, "changed_workload", (
        s.probe_like(PROBED, PROBE_SECONDS, warm=warm, source=PREDICT) if probe
        else s.workload("predict", warm=warm, source=PREDICT,
                   bind=[s.device("one"), s.device("exact_rows"), s.device(scale)]),
        s.host("w"),
        s.device("w"),
        s.value(ROWS),
        s.rng(SEED),
        s.jax_device(fault),
        s.value(REPEATS),
    ))


WRONG_SETUPS = {
    WRONG_FUNCTION: (
        "the grader passed a `compiled_predict` whose results are off by about 0.1% (its "
        "program, `w` and `w_host` were exactly those of the right setup)",
        "the check did not catch it. Comparing `w` with `w_host`, or reading the program "
        "with `jax.make_jaxpr` or `.lower(...).as_text()`, checks the pieces, not the "
        "result: only the values it computes can show this mistake. Is the reference "
        "computed by the function under test, is the tolerance looser than atol=2e-5, "
        "rtol=2e-5, or is the AssertionError caught?",
    ),
    WRONG_DEVICE: (
        "the device computed in reduced precision (the right `compiled_predict` and the "
        "right weights, results slightly off)",
        "the check did not catch it. A reference computed with JAX (`jnp`, or a function "
        "you jit) runs on the same device and shares its error; an independent reference "
        "is computed with NumPy on the host, from `larger_host` and `w_host`.",
    ),
}

EXERCISE = Exercise(
    id="exercise-4",
    title="Check an independent NumPy result first",
    version="6",
    required=(Required("changed_workload", "compiled_predict, w_host, w, rows, rng, device, "
                       "repeats", positional=7),),
    calls=(
        _call(MAIN),
        _call(WRONG_FUNCTION, scale="scale_off"),
        _call(WRONG_DEVICE, fault="bfloat16-tanh"),
        # The calibrated probe: the right function, whose program also runs the spin.
        _call(PROBE, probe=True),
    ),
    checks=(
        CheckSpec(Check.RUNS, "Runs", c.runs, 1, {"calls": (MAIN, PROBE)}),
        CheckSpec(Check.SHAPE, "Result shape", c.shape, 1,
                  {"call": MAIN, "result": RESULT, "reference": "predict", **DRAWN}),
        CheckSpec(Check.NUMPY_MATCH, "Matches NumPy", c.numpy_match, 1,
                  {"call": MAIN, "result": RESULT, "reference": "predict", **DRAWN}),
        CheckSpec(Check.VERIFICATION_CATCHES_ERRORS, "Your check catches errors",
                  verification_catches_errors, 3, {"right": MAIN, "wrong": WRONG_SETUPS}),
    ),
    samples=(Samples(MAIN, SAMPLES, REPEATS),
             Samples(PROBE, SAMPLES, REPEATS, probe=True)),
    make_inputs=make_inputs,
    make_references=make_references,
    # Each call in a fresh child: the wrong setups cannot be told apart by call order.
    isolate_calls=True,
)
