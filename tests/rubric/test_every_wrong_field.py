"""A check that validates several fields of what the learner returned names every wrong one
at once, and phases are words, never Python's set notation (pure: no child process)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from builders import context

from syncgrade.rubric import checks as c
from syncgrade.rubric import checks_report as rc
from syncgrade.rubric.base import Context
from syncgrade.trace import CallFrame, Hello, LearnerError, Load, NameProblem

INPUTS = {"x": np.zeros((6, 4), np.float32), "w": np.zeros((4, 3), np.float32)}
HELLO = Hello(type="hello", jax_version="0.4.30", jaxlib_version="0.4.30",
              numpy_version="2.0", python_version="3.11", backend="cpu", device="cpu",
              platform="cpu")


def _report_ctx(report: dict[str, Any]) -> Context:
    return context("exercise-7", [], inputs=INPUTS, decoded=report, hello=HELLO)


def test_every_wrong_environment_field_is_named() -> None:
    ctx = _report_ctx({"environment": {"jax_version": "0.1", "backend": "tpu",
                                       "device": "cpu"}})
    outcome = rc.environment(ctx, call="main", report=("environment",))
    assert outcome.status == "failed"
    assert "`environment.jax_version` is '0.1'" in outcome.message
    assert "`environment.backend` is 'tpu'" in outcome.message
    assert "device" not in outcome.message.replace("process", "")
    assert "`jax_version`" in outcome.hint and "`backend`" in outcome.hint
    assert outcome.evidence.facts["fields"] == "jax_version, backend"


def test_every_wrong_workload_field_is_named() -> None:
    ctx = _report_ctx({"workload": {"shapes": [[6, 5], [4, 4]], "dtypes": ["float32", "int8"]}})
    outcome = rc.workload_matches(ctx, call="main", report=("workload",), args=("x", "w"))
    assert outcome.status == "failed"
    for said in ("`workload.shapes[0]` is [6, 5]", "`workload.shapes[1]` is [4, 4]",
                 "`workload.dtypes[1]` is 'int8'"):
        assert said in outcome.message
    assert outcome.evidence.facts["wrong"] == 3


def test_every_wrong_summary_is_named_and_a_difference_of_wrong_medians_is_not() -> None:
    samples = {"first_call_s": [0.3, 0.1, 0.2], "warm_s": [0.01, 0.03, 0.02]}
    params: dict[str, Any] = {
        "medians": {"first_call_median_s": "first_call_s", "warm_median_s": "warm_s"},
        "differences": {"compile_estimate_s": ("first_call_median_s", "warm_median_s")}}
    both = _report_ctx({**samples, "first_call_median_s": 0.25, "warm_median_s": 0.025,
                        "compile_estimate_s": 0.225})  # means, and their difference
    outcome = rc.summary_stats(both, call="main", report=(), **params)
    assert outcome.status == "failed"
    assert "`first_call_median_s` is 0.25" in outcome.message
    assert "`warm_median_s` is 0.025" in outcome.message
    assert "compile_estimate_s" not in outcome.message  # right once the medians are
    all_three = _report_ctx({**samples, "first_call_median_s": 0.25, "warm_median_s": 0.02,
                             "compile_estimate_s": 1.0})
    outcome = rc.summary_stats(all_three, call="main", report=(), **params)
    assert "`first_call_median_s`" in outcome.message
    assert "`compile_estimate_s` is 1" in outcome.message
    assert outcome.evidence.facts["fields"] == "first_call_median_s, compile_estimate_s"


def test_every_missing_name_is_named() -> None:
    ctx = dataclasses.replace(context("exercise-1", []), load=Load(
        type="load", ok=False, problems=[
            NameProblem(name="benchmark", problem="missing"),
            NameProblem(name="helper", problem="signature", detail="it takes no arguments"),
        ]))
    outcome = c.runs(ctx, calls=())
    assert outcome.status == "failed"
    assert "does not define `benchmark" in outcome.message
    assert "`helper` cannot be called as `helper`: it takes no arguments." in outcome.message
    assert outcome.evidence.facts == {"missing": "benchmark", "problems": 2}


def test_phases_are_words_not_set_notation() -> None:
    assert rc.phase_words({"output wait", "dispatch", "compilation"}) == (
        "compilation, dispatch and output wait")
    assert rc.phase_words({"dispatch"}) == "dispatch"
    assert rc.phase_words(set()) == "no phases"


def test_medians_rounded_to_the_microsecond_agree_and_two_microseconds_off_do_not() -> None:
    """A report's medians rounded for display (``round(median, 6)``) are the medians, as a
    sample rounded so is its interval (the matching's tolerance); the difference of two
    rounded medians, rounded again, too. Two microseconds off is another number."""
    samples = {"first_call_s": [0.2123456, 0.2111114, 0.2133337],
               "warm_s": [0.0012347, 0.0012352, 0.0012349]}
    params: dict[str, Any] = {
        "medians": {"first_call_median_s": "first_call_s", "warm_median_s": "warm_s"},
        "differences": {"compile_estimate_s": ("first_call_median_s", "warm_median_s")}}
    first, warm = round(0.2123456, 6), round(0.0012349, 6)
    rounded = _report_ctx({**samples, "first_call_median_s": first, "warm_median_s": warm,
                           "compile_estimate_s": round(first - warm, 6)})
    assert rc.summary_stats(rounded, call="main", report=(), **params).status == "passed"
    off = _report_ctx({**samples, "first_call_median_s": 0.2123456,
                       "warm_median_s": 0.0012349 + 2e-6,
                       "compile_estimate_s": 0.2123456 - 0.0012349})
    outcome = rc.summary_stats(off, call="main", report=(), **params)
    assert outcome.status == "failed"
    assert outcome.evidence.facts["fields"] == "warm_median_s"


MAIN_THREAD = LearnerError(type="ValueError", line=8, message=(
    "signal only works in main thread of the main interpreter"))


@pytest.mark.parametrize("where", ["load", "call"])
def test_code_that_needs_the_main_thread_is_told_where_it_runs(where: str) -> None:
    """An error that needs Python's main thread (``signal.signal``), at import or in a
    call, says the grader runs the code on another thread and names the line, instead of
    "run it to reproduce it" (which would not reproduce it); any other error keeps that
    hint."""
    ctx = context("exercise-1", [])
    if where == "load":
        ctx = dataclasses.replace(ctx, load=Load(type="load", ok=False, error=MAIN_THREAD))
    else:
        ctx = dataclasses.replace(ctx, frames={"main": CallFrame(
            type="call", id="main", ok=False, error=MAIN_THREAD)})
    outcome = c.runs(ctx, calls=("main",))
    assert outcome.status == "failed"
    assert "on line 8" in outcome.message
    assert "a thread other than Python's main one" in outcome.message
    assert "reproduce" not in outcome.hint and "timeout" in outcome.hint
    assert outcome.evidence.facts["main_thread"] is True
    other = LearnerError(type="ValueError", line=8, message="shapes do not match")
    ctx = dataclasses.replace(ctx, frames={"main": CallFrame(
        type="call", id="main", ok=False, error=other)}, load=Load(type="load", ok=True))
    assert "reproduce" in c.runs(ctx, calls=("main",)).hint
