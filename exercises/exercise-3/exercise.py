"""exercise-3 — Exclude initial placement (device-resident benchmark).

``device_resident_benchmark(fn, host_args, device, repeats)`` is called twice: with a
jitted ``tanh(x @ w)`` that has never run for the hidden shapes and NumPy hidden inputs
(the learner places, waits, warms up, then times), and with the calibrated spin probe and
its NumPy arguments (``covers-device-work``: a timer that stops at dispatch measures ~0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from syncgrade.rubric import Check, CheckSpec, Exercise, GraderCall, Required, Samples, tolerance
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s

REPEATS = 5
PROBE_SECONDS = 0.02  # as exercise-8: a no-wait sample is ~0.1 ms, far below 35% of it (7 ms)
PROBE_REPEATS = 2
RESULT = (0,)
SAMPLES = (1,)


def make_inputs() -> dict[str, np.ndarray]:
    """Hidden inputs: not the lesson's seed or shapes (64x32 @ 32x16), and enough work per
    call to run asynchronously on XLA:CPU. The reduction stays short (64) so a float32
    result sits well inside the float64 reference's tolerance. 4608 rows, not 1152: with
    1152 a NumPy recompute of the result inside the timer (the lesson's mistake) took
    1.0-1.3 ms of host CPU warm, against `interval-clean`'s 1 ms bound, and the flawed
    corpus file and mutant that do it passed in about 1 grade in 7 (2026-12-06)."""
    rng = np.random.default_rng(3_302_611)
    return {
        "x": rng.normal(size=(4608, 64)).astype(np.float32),
        "w": rng.normal(size=(64, 448)).astype(np.float32),
    }


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    return {"predict": tolerance.tanh_matmul(inputs["x"], inputs["w"])}


MAIN = "main"
PROBE = "probe"

EXERCISE = Exercise(
    id="exercise-3",
    title="Exclude initial placement",
    version="5",
    required=(Required("device_resident_benchmark", "fn, host_args, device, repeats",
                       positional=4),),
    calls=(
        GraderCall(MAIN, "device_resident_benchmark", (
            s.workload("predict"),  # jitted, never compiled for these shapes
            s.tuple_of(s.host("x"), s.host("w")),
            s.jax_device(),
            s.value(REPEATS),
        )),
        GraderCall(PROBE, "device_resident_benchmark", (
            s.probe(PROBE_SECONDS), s.probe_host_args(PROBE_SECONDS), s.jax_device(),
            s.value(PROBE_REPEATS),
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
    points={"inputs-ready": 2, "placement-excluded": 2, "warmup-excluded": 2},
    hints={Check.RUNS: "device_resident_benchmark must return a pair (out, samples): the "
                       "last output of fn on the placed arguments, and a list of the "
                       "samples in seconds (floats)."},
    make_inputs=make_inputs,
    make_references=make_references,
)
