"""exercise-1 — Time a completed result.

``synchronized_samples(fn, args, repeats)`` is called twice: on a compiled, warmed
``tanh(x @ w)`` with placed, ready hidden inputs, and on the calibrated spin probe.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from syncgrade.rubric import Check, CheckSpec, Exercise, GraderCall, Required, Samples, tolerance
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s

REPEATS = 6
PROBE_SECONDS = 0.02  # as exercise-8: a no-wait sample is ~0.1 ms, far below 35% of it (7 ms)
PROBE_REPEATS = 2
SAMPLES = (1,)
RESULT = (0,)


def make_inputs() -> dict[str, np.ndarray]:
    # Larger than the lesson's 64x32 so the work runs asynchronously on XLA:CPU and a
    # missing wait is visible; a different seed so a hard-coded answer fails.
    rng = np.random.default_rng(8_202_601)
    return {
        "x": rng.normal(size=(1024, 768)).astype(np.float32),
        "w": rng.normal(size=(768, 512)).astype(np.float32),
    }


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    return {"predict": tolerance.tanh_matmul(inputs["x"], inputs["w"])}


MAIN = "main"
PROBE = "probe"

EXERCISE = Exercise(
    id="exercise-1",
    title="Time a completed result",
    version="5",
    required=(Required("synchronized_samples", "fn, args, repeats", positional=3),),
    calls=(
        GraderCall(MAIN, "synchronized_samples", (
            s.workload("predict", warm=[s.device("x"), s.device("w")]),
            s.tuple_of(s.device("x"), s.device("w")),
            s.value(REPEATS),
        )),
        GraderCall(PROBE, "synchronized_samples", (
            s.probe(PROBE_SECONDS), s.probe_args(PROBE_SECONDS), s.value(PROBE_REPEATS),
        )),
    ),
    checks=(
        CheckSpec(Check.RUNS, "Runs", c.runs, 1, {"calls": (MAIN, PROBE)}),
        CheckSpec(Check.NUMPY_MATCH, "Matches NumPy", c.numpy_match, 1,
                  {"call": MAIN, "result": RESULT, "reference": "predict"}),
    ),
    samples=(
        Samples(MAIN, SAMPLES, REPEATS),
        Samples(PROBE, SAMPLES, PROBE_REPEATS, probe=True),
    ),
    points={"sync-before-stop": 2, "covers-device-work": 2},
    hints={Check.RUNS: "synchronized_samples must return a pair (out, samples): the last "
                       "output of fn, and a list of the samples in seconds (floats)."},
    make_inputs=make_inputs,
    make_references=make_references,
)
