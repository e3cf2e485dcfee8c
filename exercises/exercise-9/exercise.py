"""exercise-9 — Sweep a static argument: time every setting warm.

``sweep_samples(fn, args, settings, repeats)`` gets a jitted function whose last parameter
is static (``jax.jit(f, static_argnums=...)``): every new value of it is a new program
that traces and compiles on its first call. The learner must warm up *each* setting
before timing it, so that no sample contains a compilation, and return one list of warm
samples per setting.

Two grader calls, in one child:

1. ``main``: a declared workload, ``blocked_predict(x, w, block) = tanh(x @ w)`` computed
   ``block`` rows at a time (``block`` static), on placed, ready hidden inputs, with three
   block sizes. Every setting computes the same values, so each output is compared with
   one NumPy reference.
2. ``probe``: a declared workload that runs the grader's calibrated spin ``times`` times
   in a row (``times`` static), with settings ``(1, 2)``: a sample of setting ``k`` must
   cover ``k`` runs (``covers-device-work`` with ``runs_per_sample=k``).

This module is the worked example of docs/authoring.md: it uses only the documented API.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from syncgrade.rubric import (
    Check,
    CheckSpec,
    Exercise,
    GraderCall,
    Part,
    Required,
    Samples,
    all_of,
    tolerance,
)
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s

MAIN = "main"
PROBE = "probe"
OUTPUTS = (0,)
SAMPLES = (1,)
BLOCKS = (384, 192, 96)  # the stub's own sweep uses other values (16, 32, 64)
REPEATS = 4
PROBE_SECONDS = 0.02  # as exercise-8: a no-wait sample is ~0.1 ms, far below 35% of it (7 ms)
PROBE_TIMES = (1, 2)
PROBE_REPEATS = 2

# Declared workloads: source text the child builds (jax, jnp, lax, np are in scope). They
# are not secret (the learner's code calls them) and hold no expected values.
BLOCKED_PREDICT = '''
def blocked_predict(x, w, block):
    """tanh(x @ w), computed `block` rows at a time; `block` is static."""
    parts = [jnp.tanh(x[i:i + block] @ w) for i in range(0, x.shape[0], block)]
    return jnp.concatenate(parts, axis=0)
'''
SPIN_TIMES = '''
def spin_times(x, n, times):
    """`times` runs in a row of the grader's calibrated spin; `times` is static."""
    for _ in range(times):
        x = lax.while_loop(lambda c: c[0] < n,
                           lambda c: (c[0] + 1, jnp.sin(c[1]) * 1.0001), (0, x))[1]
    return x
'''


def make_inputs() -> dict[str, np.ndarray]:
    # Not the stub's seed or shapes (64x32 @ 32x16), and enough work per call (~100
    # MFLOP) to run asynchronously on XLA:CPU, so a missing wait is visible.
    rng = np.random.default_rng(9_031_277)
    return {
        "x": rng.normal(size=(768, 384)).astype(np.float32),
        "w": rng.normal(size=(384, 320)).astype(np.float32),
    }


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    # Every block size computes each row's tanh(x_row @ w) with the same reduction length,
    # so one reference (and its float32 bound) serves every setting.
    return {"predict": tolerance.tanh_matmul(inputs["x"], inputs["w"])}


def per_setting(check: Any, settings: int, *, path: tuple[int, ...] = SAMPLES,
                key: str = "samples", **params: Any) -> tuple[Part, ...]:
    """``check`` on the main call once per setting, its ``key`` param at ``path + (i,)``,
    labelled ``settings[i]``; ``params`` are the check's other params."""
    return tuple(Part(f"For `settings[{i}]`", check, {"call": MAIN, key: (*path, i), **params})
                 for i in range(settings))


def layout(call: str, path: tuple[int, ...], name: str, count: int, each: str) -> Part:
    """The outer list at ``path`` has one item per setting (a clear failure otherwise)."""
    return Part("", c.list_length, {"call": call, "value": path, "count": count, "name": name,
                                "each": each})


N = len(BLOCKS)
ONE_LIST_EACH = "one list of samples per setting"

EXERCISE = Exercise(
    id="exercise-9",
    title="Sweep a static argument: time every setting warm",
    version="3",
    required=(Required("sweep_samples", "fn, args, settings, repeats", positional=4),),
    calls=(
        GraderCall(MAIN, "sweep_samples", (
            s.workload("blocked_predict", source=BLOCKED_PREDICT, static_argnums=(2,)),
            s.tuple_of(s.device("x"), s.device("w")),
            s.value(list(BLOCKS)),
            s.value(REPEATS),
        )),
        GraderCall(PROBE, "sweep_samples", (
            s.workload("spin_times", source=SPIN_TIMES, static_argnums=(2,)),
            s.probe_args(PROBE_SECONDS),
            s.value(list(PROBE_TIMES)),
            s.value(PROBE_REPEATS),
        )),
    ),
    checks=(
        CheckSpec(Check.RUNS, "Runs", c.runs, 1, {"calls": (MAIN, PROBE)}),
        CheckSpec(Check.NUMPY_MATCH, "Matches NumPy", all_of, 1, {"parts": (
            layout(MAIN, OUTPUTS, "outputs", N, "one output per setting"),
            *per_setting(c.numpy_match, N, path=OUTPUTS, key="result", reference="predict"),
        ), "ok": "The output of every setting matches an independent NumPy reference on "
                 "hidden inputs."}),
        CheckSpec(Check.SAMPLE_COUNT, "Sample counts and units", all_of, 1, {"parts": (
            layout(MAIN, SAMPLES, "samples", N, ONE_LIST_EACH),
            *per_setting(c.sample_count, N, count=REPEATS),
        ), "ok": f"{REPEATS} finite, positive samples in seconds for each of the {N} "
                 "settings."}),
    ),
    # One list per setting, in the order given, each timing its own static value; each
    # list may not reuse an interval an earlier list names.
    samples=(
        *(Samples(MAIN, (*SAMPLES, i), REPEATS, label=f"For `settings[{i}]`",
                  static=(block,), exclusive_of=tuple((*SAMPLES, j) for j in range(i)))
          for i, block in enumerate(BLOCKS)),
        *(Samples(PROBE, (*SAMPLES, i), PROBE_REPEATS, probe=True, runs_per_sample=times,
                  label=f"With `settings[{i}]` = {times}",
                  exclusive_of=tuple((*SAMPLES, j) for j in range(i)))
          for i, times in enumerate(PROBE_TIMES)),
    ),
    points={"warmup-excluded": 2, "sync-before-stop": 2, "covers-device-work": 2},
    make_inputs=make_inputs,
    make_references=make_references,
)
