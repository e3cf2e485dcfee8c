"""exercise-7 — A reproducible report: first call and warm distributions.

``timing_report(make_fn, args, first_repeats, warm_repeats)`` gets a factory of fresh,
uncompiled jits of ``tanh(x @ w)`` and placed, ready hidden inputs. First-call and warm
intervals are told apart by the samples the report lists (``checks.split_first_warm``):
``first-call-includes-compile`` reads the first-call ones, ``warmup-excluded``,
``sync-before-stop`` and ``boundary-matches`` (the declared ``boundary`` against the phases
measured) the warm ones. ``environment`` also compares ``workload`` with the shapes and
dtypes of the ``args`` really passed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from syncgrade.rubric import WARM as WARM_PHASES
from syncgrade.rubric import (
    Check,
    CheckSpec,
    Exercise,
    GraderCall,
    Required,
    Samples,
    TimingReport,
    all_of,
)
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s

FIRST_REPEATS = 3  # odd counts: every median convention gives the same middle sample
WARM_REPEATS = 5
REPORT = ()
FIRST = ("first_call_s",)
WARM = ("warm_s",)
MAIN = "main"
PROBE = "probe"
PROBE_SECONDS = 0.02  # as exercise-1: a no-wait sample is ~0.1 ms, far below 35% of it (7 ms)
PROBE_FIRST, PROBE_WARM = 2, 2  # two each: a learner may take a stdev
WARM_ONLY = c.warm_intervals(FIRST, WARM)
ARGS = ("x", "w")  # the hidden inputs handed over, in order, as `args`


def make_inputs() -> dict[str, np.ndarray]:
    # Other seed and shapes than the lesson's; large enough to run asynchronously.
    rng = np.random.default_rng(7_190_843)
    return {
        "x": rng.normal(size=(672, 448)).astype(np.float32),
        "w": rng.normal(size=(448, 288)).astype(np.float32),
    }


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    return {}


EXERCISE = Exercise(
    id="exercise-7",
    title="A reproducible report: first call and warm distributions",
    version="4",
    required=(
        Required("timing_report", "make_fn, args, first_repeats, warm_repeats", positional=4),
    ),
    calls=(
        GraderCall(MAIN, "timing_report", (
            s.factory("predict"),
            s.tuple_of(*(s.device(name) for name in ARGS)),
            s.value(FIRST_REPEATS),
            s.value(WARM_REPEATS),
        )),
        GraderCall(PROBE, "timing_report", (
            s.probe_factory(PROBE_SECONDS), s.probe_args(PROBE_SECONDS),
            s.value(PROBE_FIRST), s.value(PROBE_WARM),
        )),
    ),
    checks=(
        CheckSpec(Check.RUNS, "Runs", c.runs, 1, {"calls": (MAIN, PROBE)}),
        CheckSpec(Check.REPORT_SCHEMA, "Report layout", c.report_schema, 2,
                  {"call": MAIN, "report": REPORT, "model": TimingReport, "json_safe": True}),
        CheckSpec(Check.SUMMARY_STATS, "Summaries recomputed", c.summary_stats, 1, {
            "call": MAIN, "report": REPORT,
            "medians": {"first_call_median_s": "first_call_s", "warm_median_s": "warm_s"},
            "differences": {"compile_estimate_s": ("first_call_median_s", "warm_median_s")},
        }),
        CheckSpec(Check.BOUNDARY_MATCHES, "Declared warm boundary", c.boundary_matches, 1,
                  {"call": MAIN, "boundary": ("boundary",), "select": WARM_ONLY,
                   "kind": "warm"}),
        # `environment` also covers `workload`: both describe what the report ran on, and
        # both must be read at run time rather than written by hand.
        CheckSpec(Check.ENVIRONMENT, "Real environment and workload", all_of, 1, {"parts": (
            ("", c.environment, {"call": MAIN, "report": ("environment",)}),
            ("", c.workload_matches, {"call": MAIN, "report": ("workload",), "args": ARGS}),
        ), "ok": "The reported JAX version, backend, device and workload (shapes, dtypes) "
                 "are the real ones."}),
    ),
    samples=(
        Samples(MAIN, FIRST, FIRST_REPEATS, label="`first_call_s`",
                phases=WARM_PHASES | {"compilation"}),
        # The warm list may not reuse an interval a first-call sample already names.
        Samples(MAIN, WARM, WARM_REPEATS, label="`warm_s`", exclusive_of=(FIRST,)),
        # The calibrated probe, through both lists: a first call compiles, then runs.
        Samples(PROBE, FIRST, PROBE_FIRST, label="`first_call_s`", probe=True),
        Samples(PROBE, WARM, PROBE_WARM, label="`warm_s`", probe=True, exclusive_of=(FIRST,)),
    ),
    points={"first-call-includes-compile": 2, "sync-before-stop": 2},
    make_inputs=make_inputs,
    make_references=make_references,
)
