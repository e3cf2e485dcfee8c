"""A submission that changes grader state cannot break argument building, and a build that
fails anyway is the learner's tampering (status ``error``), never a grader fault (exit 3),
unless the rubric's own spec is wrong."""

from __future__ import annotations

import inspect
from typing import Any

import jax
import numpy as np
import pytest
from builders import context

from syncgrade.child import harness, workloads
from syncgrade.courses import get_exercise
from syncgrade.grading.cause import unbuilt_calls
from syncgrade.rubric import checks as c
from syncgrade.rubric.base import Context
from syncgrade.rubric.validation import SPEC_KINDS
from syncgrade.trace import CallFrame


def test_parent_and_child_agree_on_spec_kinds() -> None:
    assert SPEC_KINDS == harness.KINDS
    builders = {name[len("_build_"):] for name in dir(harness.Harness)
                if name.startswith("_build_")}
    assert builders == harness.KINDS


def test_builders_use_copies_taken_before_learner_code(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.ones((4, 3), np.float32)
    w = np.ones((3, 2), np.float32)
    built = harness.Harness(recorder=None,  # type: ignore[arg-type]  # these builds record nothing
                            inputs={"x": x, "w": w})
    # What a submission could do at import, had it reached the module.
    monkeypatch.setattr(workloads, "WORKLOADS", {})
    monkeypatch.setattr(workloads, "put", None)
    monkeypatch.setattr(workloads, "wait", None)
    monkeypatch.setattr(workloads, "spin", None)
    monkeypatch.setattr(jax, "devices", lambda *a: [])
    monkeypatch.setattr(np.random, "default_rng", None)
    fn = built.build({"kind": "workload", "name": "predict",
                      "warm": [{"kind": "device", "name": "x"}, {"kind": "device", "name": "w"}]})
    np.testing.assert_allclose(np.asarray(fn(x, w)), np.tanh(x @ w), rtol=1e-6)
    assert built.build({"kind": "factory", "name": "predict"})()(x, w).shape == (4, 2)
    assert built.build({"kind": "jax_device"}).platform == "cpu"
    assert built.build({"kind": "rng", "seed": 1}).integers(10) >= 0
    assert built.build({"kind": "device", "name": "x", "ready": False}).shape == (4, 3)


def test_unknown_kinds_are_refused_by_name() -> None:
    built = harness.Harness(recorder=None, inputs={})  # type: ignore[arg-type]  # records nothing
    with pytest.raises(ValueError, match="unknown argument kind"):
        built.build({"kind": "__init__"})  # never an arbitrary attribute lookup


def _context(frames: dict[str, CallFrame]) -> tuple[Any, Context]:
    exercise = get_exercise("exercise-1")
    inputs = exercise.make_inputs()
    ctx = context(exercise, [], frames=frames, inputs=inputs)
    return exercise, ctx


def test_a_failed_build_is_tampering_with_a_learner_facing_message() -> None:
    exercise = get_exercise("exercise-1")
    frames = {call.id: CallFrame(type="call", id=call.id, ok=False,
                                 grader_error="KeyError: 'predict_off_by_a_little'")
              for call in exercise.calls}
    exercise, ctx = _context(frames)
    found = unbuilt_calls(exercise, ctx.inputs, frames)
    assert found and all(f.startswith("grader state:") for f in found)
    outcome = c.runs(ctx, calls=tuple(call.id for call in exercise.calls))
    assert outcome.status == "failed"
    assert "changed the grader's or a library's state" in outcome.message
    assert "KeyError" in outcome.message and "predict_off" not in outcome.message


def test_a_wrong_rubric_spec_is_still_a_grader_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    exercise = get_exercise("exercise-1")
    call = exercise.calls[0]
    broken_call = type(call)(id=call.id, function=call.function,
                             args=({"kind": "host", "name": "no-such-input"},))
    broken = type(exercise)(**{**exercise.__dict__, "calls": (broken_call,)})
    frames = {call.id: CallFrame(type="call", id=call.id, ok=False,
                                 grader_error="KeyError: 'no-such-input'")}
    with pytest.raises(RuntimeError, match="no hidden input named 'no-such-input'"):
        unbuilt_calls(broken, exercise.make_inputs(), frames)
    assert unbuilt_calls(broken, exercise.make_inputs(), {}) == []


HARMLESS_STATE = """
import gc, sys, time
{at_import}

def synchronized_samples(fn, args, repeats):
    {in_function}
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
"""


@pytest.mark.parametrize(("at_import", "in_function"), [
    # A low limit set inside the function: the next call's arguments (the probe's) were
    # built under it and failed, which was reported as tampering ("7 not trusted").
    ("", "sys.setrecursionlimit(45)"),
    ("sys.setrecursionlimit(60)", "pass"),
    ("sys.setrecursionlimit(100_000)", "pass"),
    ("sys.setswitchinterval(1e-4); gc.disable()", "gc.collect(); gc.freeze()"),
])
def test_harmless_interpreter_settings_are_not_tampering(at_import: str,
                                                         in_function: str) -> None:
    import syncgrade

    source = HARMLESS_STATE.format(at_import=at_import, in_function=in_function)
    report = syncgrade.grade("exercise-1", source=source)
    assert report.cause == "graded", [c.message for c in report.checks]
    assert report.score == report.max_score, [c.message for c in report.checks
                                              if c.status != "passed"]


def test_the_recursion_limit_is_lifted_for_the_grader_and_restored_for_the_learner() -> None:
    import sys

    seen: list[int] = []
    before = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(80)
        learner_limit = harness.lift_recursion_limit()
        seen.append(sys.getrecursionlimit())
        harness.restore_recursion_limit(learner_limit)
        seen.append(sys.getrecursionlimit())
    finally:
        sys.setrecursionlimit(before)
    assert (learner_limit, seen) == (80, [harness.GRADER_RECURSION_LIMIT, 80])


SCALED = """
def predict(x, w, scale):
    return jnp.tanh(x @ w) * scale
"""


def test_a_bound_workload_is_one_program_whatever_its_data() -> None:
    """``bind`` (exercise-4): the learner's callable takes ``(x, w)``, computes with the
    bound data, and reads the same under make_jaxpr and lower(...).as_text() whatever the
    data; an unknown device fault is refused by name before anything is built."""
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    w = np.full((3, 2), 0.5, np.float32)
    inputs = {"x": x, "w": w, "one": np.ones(2, np.float32),
              "off": np.full(2, 1.001, np.float32)}
    built = harness.Harness(recorder=None, inputs=inputs)  # type: ignore[arg-type]  # no recording
    fns = [built.build({"kind": "workload", "name": "predict", "source": SCALED,
                        "warm": [{"kind": "device", "name": "x"}, {"kind": "device", "name": "w"}],
                        "bind": [{"kind": "device", "name": scale}]})
           for scale in ("one", "off")]
    right, wrong = (np.asarray(fn(x, w)) for fn in fns)
    np.testing.assert_array_equal(right, np.asarray(jax.numpy.tanh(x @ w)))
    assert not np.array_equal(right, wrong)
    assert [list(inspect.signature(fn).parameters) for fn in fns] == [["x", "w"]] * 2
    texts = [(str(jax.make_jaxpr(fn)(x, w)), fn.lower(x, w).as_text()) for fn in fns]
    assert texts[0] == texts[1] and "tanh" in texts[0][0]
    assert fns[0].eval_shape(x, w).shape == (4, 2)
    with pytest.raises(ValueError, match="unknown device fault"):
        harness.install_faults({"args": [{"kind": "jax_device", "fault": "no-such-fault"}]})
