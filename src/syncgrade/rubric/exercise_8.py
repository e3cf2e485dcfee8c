"""exercise-8 — End-to-end request, named separately.

``end_to_end_samples(fn, host_args, device, repeats)`` is called twice: on an uncompiled
jit of ``tanh(x @ w)`` with hidden NumPy inputs, and on the calibrated spin probe with its
NumPy inputs. Every interval must contain the placement of each host input and the
readback of the output (``end_to_end``), and none may contain a compilation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from syncgrade.rubric import checks as c
from syncgrade.rubric import end_to_end as e2e
from syncgrade.rubric import specs as s
from syncgrade.rubric import tolerance
from syncgrade.rubric.base import CheckSpec, Exercise, GraderCall, Required
from syncgrade.rubric.compose import all_of

REPEATS = 6
PROBE_SECONDS = 0.05
PROBE_REPEATS = 2
RESULT = (0,)
SAMPLES = (1,)
MAIN = "main"
PROBE = "probe"


def make_inputs() -> dict[str, np.ndarray]:
    # Other seed and shapes than the lesson's; large enough to run asynchronously.
    rng = np.random.default_rng(8_470_211)
    return {
        "x": rng.normal(size=(800, 352)).astype(np.float32),
        "w": rng.normal(size=(352, 272)).astype(np.float32),
    }


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    return {"predict": tolerance.tanh_matmul(inputs["x"], inputs["w"])}


EXERCISE = Exercise(
    id="exercise-8",
    title="End-to-end request, named separately",
    version="2",
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
        CheckSpec("runs", "Runs", c.runs, 1, {"calls": (MAIN, PROBE)}),
        CheckSpec("numpy-match", "Matches NumPy", c.numpy_match, 1,
                  {"call": MAIN, "result": RESULT, "reference": "predict"}),
        CheckSpec("sample-count", "Sample count and units", c.sample_count, 1,
                  {"call": MAIN, "samples": SAMPLES, "count": REPEATS}),
        CheckSpec("samples-measured", "Samples are measured", all_of, 1, {"parts": (
            ("", c.samples_measured, {"call": MAIN, "samples": SAMPLES}),
            ("On the grader's calibration workload", c.samples_measured,
             {"call": PROBE, "samples": SAMPLES}),
        ), "ok": "Every sample is the difference of two clock readings your code took."}),
        CheckSpec("warmup-excluded", "Warm-up excluded", c.warmup_excluded, 1,
                  {"call": MAIN, "samples": SAMPLES}),
        CheckSpec("placement-included", "Placement included", e2e.placement_included, 2,
                  {"call": MAIN, "samples": SAMPLES}),
        CheckSpec("readback-included", "Readback included", e2e.readback_included, 2,
                  {"call": MAIN, "samples": SAMPLES}),
        CheckSpec("covers-device-work", "Covers the device work", c.covers_device_work, 2,
                  {"call": PROBE, "samples": SAMPLES}),
    ),
    make_inputs=make_inputs,
    make_references=make_references,
)
