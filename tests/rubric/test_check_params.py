"""The authoring API's check parameters and building blocks, on hand-written traces (no
child): ``times-the-call``'s ``calls``, ``covers-device-work``'s ``runs_per_sample``,
``warmup-excluded``'s ``static_arguments``, ``list_length``, the public interval helpers,
and declared workloads built by the child's harness."""

from __future__ import annotations

from typing import Any

import builders
import numpy as np
import pytest
from test_samples_measured import F, Trace, context

from syncgrade.child import harness, workloads
from syncgrade.rubric import checks as c
from syncgrade.rubric import intervals as iv
from syncgrade.rubric import specs as s
from syncgrade.rubric import validation
from syncgrade.rubric.base import Context, Skip
from syncgrade.trace import CallFrame


def chain_loop(k: int, repeats: int = 4) -> tuple[Trace, list[float]]:
    """``repeats`` samples, each timing ``k`` dependent calls and one wait on the last."""
    t = Trace()
    diffs: list[float] = []
    for _ in range(repeats):
        start, v0 = t.read()
        calls = [t.timed_call(wait=False) for _ in range(k)]
        t.add("wait", how="block_until_ready", arrays=[t.token])
        t.clock += 0.004 * k
        stop, v1 = t.read()
        t.ready(stop, calls[-1], ready=True)
        t.pair(start, stop)
        diffs.append(float(v1) - float(v0))
        t.clock += 0.001
    return t, diffs


def test_times_the_call_counts_a_chain_when_told() -> None:
    t, diffs = chain_loop(3)
    ctx = context(t.events(), [None, diffs])
    assert c.times_the_call(ctx, "main", (1,), calls=3).status == "passed"
    one = c.times_the_call(ctx, "main", (1,))  # the default: one call per sample
    assert one.status == "failed" and "contains 3 calls: one sample should time one call" \
        in one.message
    two = c.times_the_call(ctx, "main", (1,), calls=2)
    assert two.status == "failed" and "the 2 calls of one chain" in two.message
    with pytest.raises(ValueError, match="at least 1"):
        c.times_the_call(ctx, "main", (1,), calls=0)


def test_times_the_call_default_is_unchanged_for_single_calls() -> None:
    t, diffs = chain_loop(1)
    ok = c.times_the_call(context(t.events(), [None, diffs]), "main", (1,))
    assert ok.status == "passed"
    assert ok.message == "Each of the 4 intervals times exactly one call."


def probe_context(samples: list[float], known: float = 0.1) -> Context:
    frame = CallFrame(type="call", id="probe", ok=True, value=None, events=[],
                      probe_seconds=known)
    return builders.context("exercise-1", [], frames={"probe": frame},
                            values={"probe": [None, samples]})


def test_covers_device_work_scales_with_runs_per_sample() -> None:
    ctx = probe_context([0.15, 0.16])  # 1.5 runs of a 100 ms probe
    assert c.covers_device_work(ctx, "probe", (1,)).status == "passed"
    assert c.covers_device_work(ctx, "probe", (1,), runs_per_sample=4).status == "passed"
    short = c.covers_device_work(ctx, "probe", (1,), runs_per_sample=5)  # 0.15 < 0.35*0.5
    assert short.status == "failed"
    assert "about 500 ms (5 runs of about 100 ms)" in short.message
    assert short.evidence.facts["runs_per_sample"] == 5
    with pytest.raises(ValueError, match="at least 1"):
        c.covers_device_work(ctx, "probe", (1,), runs_per_sample=0)


def test_covers_device_work_default_message_is_unchanged() -> None:
    bad = c.covers_device_work(probe_context([0.0001, 0.2]), "probe", (1,))
    assert bad.message == ("With a workload the grader knows takes about 100 ms, your "
                           "shortest sample was 0.10 ms (0% of the work).")
    assert set(bad.evidence.facts) == {"known_ms", "shortest_ms"}


def test_list_length_names_the_layout() -> None:
    ctx = context([], [None, [0.1, 0.2, 0.3]])
    assert c.list_length(ctx, "main", (1,), 3, "samples").status == "passed"
    wrong = c.list_length(ctx, "main", (1,), 2, "samples", "one list per setting")
    assert wrong.status == "failed"
    assert wrong.message == ("`samples` has 3 items; the grader expected 2 (one list per "
                             "setting).")
    scalar = c.list_length(context([], [None, 0.5]), "main", (1,), 2, "samples")
    assert scalar.status == "failed" and "not a list" in scalar.message


def test_static_arguments_explain_a_compile_after_a_warm_up_on_the_same_arrays() -> None:
    t = Trace()
    t.timed_call(wait=True)  # the warm-up: same name, same input tokens
    start, v0 = t.read()
    # A compilation inside the interval, before the timed call returns (the recorder
    # numbers the compilations of a call between the call and its return).
    t.add("compile", event="backend_compile", fun="fn", site=["submission.py", 2])
    call = t.timed_call(wait=True)
    stop, v1 = t.read()
    t.ready(stop, call, ready=True)
    t.pair(start, stop)
    events = t.events()
    ctx = context(events, [None, [float(v1) - float(v0)]])
    plain = c.warmup_excluded(ctx, "main", (1,))
    static = c.warmup_excluded(ctx, "main", (1,), static_arguments=True)
    assert plain.status == static.status == "failed"
    assert "another callable" in plain.message and "static" not in plain.message
    assert "a static argument had a value no earlier call used" in static.message
    assert "every static value" in static.hint


def test_a_static_value_never_warmed_is_named_by_its_index_never_by_its_value() -> None:
    """The static value is the grader's setting (a hidden input): the message says a
    static value was not warmed up, never which value."""
    t = Trace()
    t.add("call", name="fn", site=[F, 2], inputs=[1, 2], numpy_args=0, fn=1, static=[7])
    t.add("return", call=1, outputs=[90])
    t.add("wait", how="block_until_ready", arrays=[90], site=[F, 3])
    start, v0 = t.read()
    t.add("compile", event="backend_compile", fun="fn", site=[F, 2])
    call = t.add("call", name="fn", site=[F, 2], inputs=[1, 2], numpy_args=0, fn=1,
                 static=[24])
    t.add("return", call=call, outputs=[91])
    t.add("wait", how="block_until_ready", arrays=[91], site=[F, 3])
    stop, v1 = t.read()
    t.ready(stop, call, ready=True)
    t.pair(start, stop)
    outcome = c.warmup_excluded(context(t.events(), [None, [float(v1) - float(v0)]]),
                                "main", (1,))
    assert outcome.status == "failed"
    assert "no earlier call used the static value this interval times" in outcome.message
    assert "24" not in outcome.message and "7" not in outcome.message
    assert "every static value" in outcome.hint


def test_public_interval_helpers() -> None:
    t, diffs = chain_loop(1, repeats=3)
    ctx = context(t.events(), [None, diffs])
    judged = iv.judged_intervals(ctx, "main", (1,))
    assert len(judged) == 3 and iv.timed_intervals(ctx, "main", (1,)) == judged
    assert iv.samples_at(ctx, "main", (1,)) == diffs
    assert iv.line_of(judged[0].start) == 1 and iv.on_line(7) == " on line 7"
    assert iv.on_line(None) == ""
    assert iv.function_of(ctx, "main") == "synchronized_samples"
    assert iv.with_timeline(ctx, "main", judged[0], n=1).facts == {"n": 1}
    empty = context(Trace().events(), [None, []])
    with pytest.raises(iv.Verdict) as verdict:
        iv.timed_intervals(empty, "main", (1,))
    assert verdict.value.outcome.status == "failed"


# --------------------------------------------------------------- declared workloads

SQUARE_ROWS = '''
def square_rows(x, times):
    for _ in range(times):
        x = jnp.tanh(x) * 2.0
    return lax.stop_gradient(x) + np.float32(0)
'''


def test_builtin_workload_names_and_spec_kinds_match_the_child() -> None:
    assert frozenset(workloads.WORKLOADS) == s.BUILTIN_WORKLOADS
    assert validation.SPEC_KINDS == harness.KINDS
    assert workloads.DEVICE_FAULTS == s.DEVICE_FAULTS


def test_harness_builds_a_declared_workload_with_static_arguments(
        monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    built = harness.Harness(recorder=None, inputs={"x": x})  # type: ignore[arg-type]
    spec = s.workload("square_rows", source=SQUARE_ROWS, static_argnums=(1,))
    assert spec["static_argnums"] == [1] and "source" in spec
    fn = built.build(spec)
    expected = x.copy()
    for _ in range(2):
        expected = np.tanh(expected) * 2
    np.testing.assert_allclose(np.asarray(fn(x, 2)), expected, rtol=1e-5)
    # A static value: a Python int is part of the program, never traced.
    assert fn(x, 1).shape == (3, 4)
    # Each grader call gets a fresh function object built from one compiled source.
    other = built.build(spec)
    assert other is not fn and len(built._declared) == 1
    # A submission that replaced the builtins afterwards cannot stop the build.
    monkeypatch.setattr("builtins.exec", None)
    monkeypatch.setattr("builtins.compile", None)
    fresh = harness.Harness(recorder=None, inputs={})  # type: ignore[arg-type]
    make_fn = fresh.build(s.factory("square_rows", source=SQUARE_ROWS, static_argnums=(1,)))
    assert make_fn()(x, 3).shape == (3, 4)


def test_declared_workload_must_define_the_named_function() -> None:
    with pytest.raises(ValueError, match="no function 'missing'"):
        workloads.from_source("missing", SQUARE_ROWS)


def test_specs_without_declarations_are_unchanged() -> None:
    # The jobs of exercises 1-8 must stay byte-identical.
    assert s.workload("predict") == {"kind": "workload", "name": "predict", "warm": None}
    assert s.factory("predict") == {"kind": "factory", "name": "predict"}


def _value(spec: dict[str, Any]) -> Any:
    return harness.Harness(recorder=None, inputs={}).build(spec)  # type: ignore[arg-type]


def test_value_specs_pass_lists_through() -> None:
    assert _value(s.value([384, 192])) == [384, 192]


def test_an_operation_compiling_inside_the_interval_is_named_not_the_timed_function() -> None:
    """``jnp.sum(x)`` first used inside the timer compiles there, outside the timed call:
    the message names what compiled and its line, and does not say the timed function
    had no warm-up (it had one)."""
    t = Trace()
    t.timed_call(wait=True)  # the warm-up of the timed function
    start, v0 = t.read()
    t.add("compile", event="backend_compile", fun="sum", site=[F, 7])
    call = t.timed_call(wait=True)
    stop, v1 = t.read()
    t.ready(stop, call, ready=True)
    t.pair(start, stop)
    outcome = c.warmup_excluded(context(t.events(), [None, [float(v1) - float(v0)]]),
                                "main", (1,))
    assert outcome.status == "failed"
    assert "`sum` compiled inside the interval on line 7" in outcome.message
    assert "no warm-up" not in outcome.message and "fn" not in outcome.message
    assert "before the timer" in outcome.hint


def test_a_call_run_with_jit_disabled_is_times_the_calls_failure_alone() -> None:
    """jax_disable_jit on: the call is recorded (``jit_disabled``) but ran op by op, nothing
    compiled. times-the-call says so with the call's line; warmup-excluded, whose question
    (was the compiled function warm?) has no answer then, is skipped, not a second lead."""
    t = Trace()
    t.add("call", name="fn", site=[F, 2], inputs=[1, 2], numpy_args=0, fn=1)
    t.add("return", call=1, outputs=[90])
    t.add("wait", how="block_until_ready", arrays=[90], site=[F, 3])
    start, v0 = t.read()
    call = t.add("call", name="fn", site=[F, 5], inputs=[1, 2], numpy_args=0, fn=1,
                 jit_disabled=True)
    t.add("compile", event="backend_compile", fun="tanh", site=[F, 5])
    t.add("return", call=call, outputs=[91])
    t.add("wait", how="block_until_ready", arrays=[91], site=[F, 6])
    stop, v1 = t.read()
    t.ready(stop, call, ready=True)
    t.pair(start, stop)
    ctx = context(t.events(), [None, [float(v1) - float(v0)]])
    timed = c.times_the_call(ctx, "main", (1,))
    assert timed.status == "failed"
    assert "jit was disabled for the call on line 5" in timed.message
    assert "jax_disable_jit" in timed.hint
    assert timed.evidence.facts["flaw"] == "jit disabled"
    with pytest.raises(Skip):
        c.warmup_excluded(ctx, "main", (1,))
