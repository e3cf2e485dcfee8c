"""exercise-5 — A different equivalent workload (energy).

Three grader calls, in this order:

1. ``energy_reference(a_host, b_host)`` on host arrays of shapes no other call uses. It
   runs first, in a fresh child, so any ``jax.numpy`` operation in it traces and compiles
   for shapes JAX has never seen: ``reference-is-numpy`` sees that in the trace.
2. ``energy(a, b)`` directly, on placed arrays: ``shape`` and ``numpy-match``.
3. ``benchmark_energy(x, w, repeats)`` on placed arrays of yet other shapes (so nothing
   was compiled for them by call 2): ``jitted``, ``warmup-excluded``, ``sync-before-stop``,
   ``sample-count``, and ``numpy-match``/``shape`` of the output it returns.
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
    all_of,
    tolerance,
)
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s

REPEATS = 6
SAMPLES = (1,)
RESULT = (0,)
REFERENCE = "reference"
ENERGY = "energy"
BENCH = "bench"


def _pair(rng: np.random.Generator, rows: int, k: int, features: int) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    return (rng.normal(size=(rows, k)).astype(np.float32),
            rng.normal(size=(k, features)).astype(np.float32))


def make_inputs() -> dict[str, np.ndarray]:
    """Other seeds and shapes than the lesson's 64x32 @ 32x16, one shape set per call, all
    large enough to run asynchronously on XLA:CPU (a missing wait is visible). The timed
    call's ``x`` has 2304 rows, not 768 (same reduction length, so the tolerance holds):
    with 768 a NumPy recompute of the energy inside the timer (the lesson's mistake) took
    1.7-2.4 ms of host CPU an interval, under twice `interval-clean`'s 1 ms bound, which
    tests/courses/test_corpus.py requires (2026-12-06)."""
    rng = np.random.default_rng(5_260_417)
    ref_a, ref_b = _pair(rng, 520, 200, 136)
    a, b = _pair(rng, 704, 352, 224)
    x, w = _pair(rng, 2304, 384, 256)
    return {"ref_a": ref_a, "ref_b": ref_b, "a": a, "b": b, "x": x, "w": w}


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    """Each reference carries the float32 error bound of the energy (rubric/tolerance.py)."""
    return {
        "reference": tolerance.row_energy(inputs["ref_a"], inputs["ref_b"]),
        "energy": tolerance.row_energy(inputs["a"], inputs["b"]),
        "bench": tolerance.row_energy(inputs["x"], inputs["w"]),
    }


def _on_both(check: Any) -> tuple[tuple[str, Any, dict[str, Any]], ...]:
    """``check`` on ``energy``'s direct result and on ``benchmark_energy``'s output."""
    return (
        ("`energy(a, b)`", check, {"call": ENERGY, "result": (), "reference": "energy"}),
        ("the output `benchmark_energy` returned", check,
         {"call": BENCH, "result": RESULT, "reference": "bench"}),
    )


EXERCISE = Exercise(
    id="exercise-5",
    title="A different equivalent workload (energy)",
    version="4",
    required=(
        Required("energy", "a, b", positional=2),
        Required("energy_reference", "a_host, b_host", positional=2),
        Required("benchmark_energy", "x, w, repeats", positional=3),
    ),
    calls=(
        GraderCall(REFERENCE, "energy_reference", (s.host("ref_a"), s.host("ref_b"))),
        GraderCall(ENERGY, "energy", (s.device("a"), s.device("b"))),
        GraderCall(BENCH, "benchmark_energy", (s.device("x"), s.device("w"), s.value(REPEATS))),
    ),
    checks=(
        CheckSpec(Check.RUNS, "Runs", c.runs, 1, {"calls": (REFERENCE, ENERGY, BENCH)}),
        CheckSpec(Check.SHAPE, "Row-wise shape", all_of, 1,
                  {"parts": _on_both(c.shape),
                   "ok": "`energy` and `benchmark_energy` both return one value per row."}),
        CheckSpec(Check.NUMPY_MATCH, "Matches NumPy", all_of, 1,
                  {"parts": _on_both(c.numpy_match),
                   "ok": "`energy` and the output of `benchmark_energy` match an independent "
                         "NumPy reference on hidden inputs."}),
        CheckSpec(Check.REFERENCE_IS_NUMPY, "Reference is NumPy", c.reference_is_numpy, 1,
                  {"call": REFERENCE, "result": (), "reference": "reference"}),
        CheckSpec(Check.JITTED, "Compiled once, reused", c.jitted, 1,
                  {"call": BENCH, "samples": SAMPLES}),
    ),
    # The timed callable is the learner's own jit (of `energy`, by any name: a lambda,
    # a decorated function or an AOT-compiled copy are all fine).
    samples=(Samples(BENCH, SAMPLES, REPEATS, fn=""),),
    points={"sync-before-stop": 2},
    make_inputs=make_inputs,
    make_references=make_references,
)
