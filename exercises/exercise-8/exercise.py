"""exercise-8 — End-to-end request, named separately.

``end_to_end_samples(fn, host_args, device, repeats)`` is called twice: on an uncompiled
jit of ``tanh(x @ w)`` with hidden NumPy inputs, and on the calibrated spin probe with its
NumPy inputs. Every interval must contain the placement of each host input and the
readback of the output (``end_to_end``), and none may contain a compilation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from syncgrade.rubric import (
    PHASES,
    Check,
    CheckSpec,
    Exercise,
    GraderCall,
    Required,
    Samples,
    tolerance,
)
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s

REPEATS = 6
PROBE_SECONDS = 0.02
PROBE_REPEATS = 2
RESULT = (0,)
SAMPLES = (1,)
MAIN = "main"
PROBE = "probe"


def make_inputs() -> dict[str, np.ndarray]:
    """Other seed and shapes than the lesson's; large enough to run asynchronously. 2400
    rows, not 800 (same reduction length, so the tolerance holds): with 800 a NumPy
    recompute of the result inside the timer (the lesson's mistake) took 1.8-3.0 ms of
    host CPU an interval, under twice `interval-clean`'s 1 ms bound, which
    tests/courses/test_corpus.py requires (2026-12-06)."""
    rng = np.random.default_rng(8_470_211)
    return {
        "x": rng.normal(size=(2400, 352)).astype(np.float32),
        "w": rng.normal(size=(352, 272)).astype(np.float32),
    }


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    return {"predict": tolerance.tanh_matmul(inputs["x"], inputs["w"])}


EXERCISE = Exercise(
    id="exercise-8",
    title="End-to-end request, named separately",
    version="4",
    required=(
        Required("end_to_end_samples", "fn, host_args, device, repeats", positional=4),
    ),
    calls=(
        GraderCall(MAIN, "end_to_end_samples", (
            s.workload("predict"),
            s.tuple_of(s.host("x"), s.host("w")),
            s.jax_device(),
            s.value(REPEATS),
        )),
        GraderCall(PROBE, "end_to_end_samples", (
            s.probe(PROBE_SECONDS), s.probe_host_args(PROBE_SECONDS), s.jax_device(),
            s.value(PROBE_REPEATS),
        )),
    ),
    checks=(
        CheckSpec(Check.RUNS, "Runs", c.runs, 1, {"calls": (MAIN, PROBE)}),
        CheckSpec(Check.NUMPY_MATCH, "Matches NumPy", c.numpy_match, 1,
                  {"call": MAIN, "result": RESULT, "reference": "predict",
                   "kind": "numpy"}),
    ),
    samples=(
        Samples(MAIN, SAMPLES, REPEATS, phases=frozenset(PHASES) - {"compilation"}),
        Samples(PROBE, SAMPLES, PROBE_REPEATS, probe=True),
    ),
    points={"placement-included": 2, "readback-included": 2, "covers-device-work": 2},
    make_inputs=make_inputs,
    make_references=make_references,
)
