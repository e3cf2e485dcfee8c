"""exercise-10 — Time a step whose input is donated.

``donated_samples(x_host, repeats)`` times the learner's own ``jax.jit`` of ``step(x) =
x * 0.5 + 1`` made with its input donated (``donate_argnums=0``): each call hands the
input's buffer to XLA for the output, so the input array is deleted by the call and
cannot be used again. The learner must give every timed call a fresh device copy of the
input, placed and waited on *before* the timer starts: re-placing it inside the timer
times a host-to-device copy, and reusing a donated array raises.

One grader call: ``main``, on a hidden host array large enough (6 MiB) that the step runs
asynchronously on XLA:CPU (a missing wait is visible) and that its donation matters.

This module uses only the documented authoring API (docs/authoring.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from syncgrade.rubric import Check, CheckSpec, Exercise, GraderCall, Required, Samples
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s

MAIN = "main"
OUTPUT = (0,)
SAMPLES = (1,)
REPEATS = 5


def make_inputs() -> dict[str, np.ndarray]:
    # Not the stub's seed or shape (1024 x 512).
    rng = np.random.default_rng(10_442_871)
    return {"x": rng.normal(size=(1536, 1024)).astype(np.float32)}


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    # Elementwise: a float32 evaluation is within an ulp or two, far inside the lesson's
    # own atol=rtol=2e-5 allowance (tolerance.as_expected of a plain array).
    return {"step": inputs["x"].astype(np.float64) * 0.5 + 1.0}


EXERCISE = Exercise(
    id="exercise-10",
    title="Time a step whose input is donated",
    version="1",
    required=(Required("donated_samples", "x_host, repeats", positional=2),),
    calls=(GraderCall(MAIN, "donated_samples", (s.host("x"), s.value(REPEATS))),),
    checks=(
        CheckSpec(Check.RUNS, "Runs", c.runs, 1, {"calls": (MAIN,)}),
        CheckSpec(Check.NUMPY_MATCH, "Matches NumPy", c.numpy_match, 1,
                  {"call": MAIN, "result": OUTPUT, "reference": "step"}),
    ),
    # The timed callable is the learner's own jit (of `step`, by any name), and every
    # timed call must donate its input: a fresh one per sample.
    samples=(Samples(MAIN, SAMPLES, REPEATS, fn="", donates=True),),
    points={"donates-input": 2, "placement-excluded": 2, "sync-before-stop": 2},
    make_inputs=make_inputs,
    make_references=make_references,
)
