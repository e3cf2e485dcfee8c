"""exercise-6 — Repair a flawed timer (diagnosis).

``repaired_benchmark(fn, args, repeats)`` gets a jitted ``tanh(x @ w)`` that is not yet
compiled for the hidden inputs, and hidden inputs that are placed but still being
computed (so ``inputs-ready`` can tell whether the learner waited for them). The report's
declared ``boundary`` is compared with the phases measured in the learner's own intervals.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from syncgrade.rubric import (
    Check,
    CheckSpec,
    Exercise,
    GraderCall,
    RepairReport,
    Required,
    Samples,
    tolerance,
)
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s

REPEATS = 7  # not the default 5: a hard-coded count fails `sample-count`
REPORT = (0,)
SAMPLES = (0, "samples")
BOUNDARY = (0, "boundary")
RESULT = (1,)
MAIN = "main"
PROBE = "probe"
PROBE_SECONDS = 0.02  # as exercise-1: a no-wait sample is ~0.1 ms, far below 35% of it (7 ms)
PROBE_REPEATS = 2


def make_inputs() -> dict[str, np.ndarray]:
    # Other seed and shapes than the lesson's; large enough to run asynchronously.
    rng = np.random.default_rng(6_310_529)
    return {
        "x": rng.normal(size=(736, 416)).astype(np.float32),
        "w": rng.normal(size=(416, 240)).astype(np.float32),
    }


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    return {"predict": tolerance.tanh_matmul(inputs["x"], inputs["w"])}


EXERCISE = Exercise(
    id="exercise-6",
    title="Repair a flawed timer (diagnosis)",
    version="4",
    required=(
        Required("repaired_benchmark", "fn, args, repeats=5", positional=3),
    ),
    calls=(
        GraderCall(MAIN, "repaired_benchmark", (
            s.workload("predict"),
            s.tuple_of(s.device("x", ready=False), s.device("w", ready=False)),
            s.value(REPEATS),
        )),
        GraderCall(PROBE, "repaired_benchmark", (
            s.probe(PROBE_SECONDS), s.probe_args(PROBE_SECONDS), s.value(PROBE_REPEATS),
        )),
    ),
    checks=(
        CheckSpec(Check.RUNS, "Runs", c.runs, 1, {"calls": (MAIN, PROBE)}),
        CheckSpec(Check.NUMPY_MATCH, "Matches NumPy", c.numpy_match, 1,
                  {"call": MAIN, "result": RESULT, "reference": "predict"}),
        CheckSpec(Check.BOUNDARY_MATCHES, "Declared boundary", c.boundary_matches, 2,
                  {"call": MAIN, "boundary": BOUNDARY, "samples": SAMPLES}),
        CheckSpec(Check.REPORT_SCHEMA, "Report layout", c.report_schema, 1,
                  {"call": MAIN, "report": REPORT, "model": RepairReport}),
    ),
    samples=(Samples(MAIN, SAMPLES, REPEATS),
             Samples(PROBE, SAMPLES, PROBE_REPEATS, probe=True)),
    points={"sync-before-stop": 2},
    make_inputs=make_inputs,
    make_references=make_references,
)
