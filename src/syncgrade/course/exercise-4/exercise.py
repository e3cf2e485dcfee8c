"""exercise-4 — Check an independent NumPy result first (changed workload).

``changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats)`` is called
three times, each with a ``compiled_predict`` warmed for a smaller row count only, so the
learner's new shape compiles inside their code:

- ``main``: the right ``tanh(x @ w)`` (``predict_exact``); every check but
  ``verification-catches-errors`` reads this call. The reference uses the input the
  hidden-seed ``rng`` produces.
- ``wrong-function``: ``compiled_predict`` is off by 1e-3 relative
  (``predict_off_by_a_little``): caught at atol=rtol=2e-5, not at atol=1e-1.
- ``wrong-device-weights``: the right function, but the device ``w`` is 1e-3 relative away
  from ``w_host``: only a reference computed from the host copies catches it (a reference
  computed through JAX on the placed arrays agrees with the wrong result).

Both wrong calls must raise AssertionError; they are left out of ``runs`` for that reason.
Seen from inside the learner's function the three calls are alike in everything but the
values computed (see ``_call``); what remains observable is the order of the calls within
one grade, and the closure of ``compiled_predict.__wrapped__`` for code that digs for it.
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


def make_inputs() -> dict[str, np.ndarray]:
    """Hidden weights (other seed and shapes than the lesson's), their slightly wrong
    device copy, and the smaller input ``compiled_predict`` is warmed on."""
    rng = np.random.default_rng(4_402_609)
    w = (rng.normal(size=(FEATURES, OUTPUTS)) * W_SCALE).astype(np.float32)
    return {
        "w": w,
        "w_off": (w * np.float32(1.0 + 1e-3)).astype(np.float32),
        "x_small": rng.normal(size=(WARM_ROWS, FEATURES)).astype(np.float32),
    }


def larger_input(rows: int = ROWS, seed: int = SEED) -> np.ndarray:
    """The input the learner's ``rng`` (``default_rng(seed)``) produces, per the contract."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(rows, FEATURES)).astype(np.float32)


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    return {"predict": tolerance.tanh_matmul(larger_input(), inputs["w"])}


MAIN = "main"
PROBE = "probe"
PROBE_SECONDS = 0.05  # as exercise-1: a no-wait sample is ~0.1 ms, far below 35% of it
WRONG_FUNCTION = "wrong-function"
WRONG_WEIGHTS = "wrong-device-weights"


def _call(call_id: str, workload: str, w_device: str, probe: bool = False) -> GraderCall:
    """One call of ``changed_workload``. The right and the wrong setups differ only in
    ``workload`` and ``w_device``, whose differences show only in the values computed:
    the same repeats, rows, seed, device and argument kinds, and the two workloads are made
    by one factory (``workloads._scaled_predict``), so their jitted functions have the same
    name, qualname, repr, docstring and signature (``tests/rubric/test_exercise_4_setups.py``
    inspects them from inside a submission)."""
    warm = [s.device("x_small"), s.device("w")]
    return GraderCall(call_id, "changed_workload", (
        s.probe_like(workload, PROBE_SECONDS, warm=warm) if probe
        else s.workload(workload, warm=warm),
        s.host("w"),
        s.device(w_device),
        s.value(ROWS),
        s.rng(SEED),
        s.jax_device(),
        s.value(REPEATS),
    ))


WRONG_SETUPS = {
    WRONG_FUNCTION: (
        "the grader passed a `compiled_predict` whose results are off by about 0.1%",
        "the check did not catch it. Is the reference computed by the function under test, "
        "is the tolerance looser than atol=2e-5, rtol=2e-5, or is the AssertionError caught?",
    ),
    WRONG_WEIGHTS: (
        "the grader passed a device `w` that differs slightly from `w_host`",
        "the check did not catch it. An independent reference is computed with NumPy from the "
        "host copies (`larger_host`, `w_host`), not from the arrays on the device.",
    ),
}

EXERCISE = Exercise(
    id="exercise-4",
    title="Check an independent NumPy result first",
    version="4",
    required=(Required("changed_workload", "compiled_predict, w_host, w, rows, rng, device, "
                       "repeats", positional=7),),
    calls=(
        _call(MAIN, "predict_exact", "w"),
        _call(WRONG_FUNCTION, "predict_off_by_a_little", "w"),
        _call(WRONG_WEIGHTS, "predict_exact", "w_off"),
        # The calibrated probe: the right function, whose program also runs the spin.
        _call(PROBE, "predict_exact", "w", probe=True),
    ),
    checks=(
        CheckSpec(Check.RUNS, "Runs", c.runs, 1, {"calls": (MAIN, PROBE)}),
        CheckSpec(Check.SHAPE, "Result shape", c.shape, 1,
                  {"call": MAIN, "result": RESULT, "reference": "predict"}),
        CheckSpec(Check.NUMPY_MATCH, "Matches NumPy", c.numpy_match, 1,
                  {"call": MAIN, "result": RESULT, "reference": "predict"}),
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
