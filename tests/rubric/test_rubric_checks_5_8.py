"""The exercise-5..8 checks on hand-written traces and values (pure: no child process)."""

from __future__ import annotations

from typing import Any

import numpy as np
from builders import NO_VALUE, call, compile_event, context, pair, put, read, ret, trace, wait

from syncgrade.analysis import analyse
from syncgrade.rubric import checks as c
from syncgrade.rubric import checks_phases as phases
from syncgrade.rubric import checks_report as rc
from syncgrade.rubric.compose import lower_first
from syncgrade.rubric.report_models import RepairReport, TimingReport
from syncgrade.trace import Hello
from syncgrade.values import JaxArray, NumpyScalar

# --------------------------------------------------------------------------- schema


def test_a_string_boundary_and_jax_samples_are_named_once_each() -> None:
    jax_zero = np.zeros(()).view(JaxArray)
    problems = rc.grouped_problems(rc.schema_errors(
        {"boundary": "dispatch", "samples": [jax_zero, jax_zero, 0.1]}, RepairReport))
    assert problems == [
        "`boundary` is one string; it should be a list or set of phase names, e.g. "
        '`["dispatch", "device execution"]`',
        "`samples[0]` (and 1 more item of `samples`) is a JAX array where a float belongs; "
        "convert it with float(...)",
    ]


def test_an_unknown_phase_lists_the_vocabulary_and_lists_pass() -> None:
    (problem,) = rc.schema_errors({"boundary": ["dispatch", "compute"], "samples": [0.1]},
                                  RepairReport)
    assert problem[0] == ("boundary", 1) and "'device execution'" in problem[1]
    assert rc.schema_errors({"boundary": frozenset({"dispatch"}), "samples": (0.1, 2)},
                            RepairReport) == []


def test_timing_report_missing_fields_and_json_problems() -> None:
    errors = rc.schema_errors({"first_call_s": [0.1], "warm_s": [0.01]}, TimingReport)
    assert {loc for loc, _ in errors} >= {("workload",), ("environment",), ("boundary",)}
    f32 = NumpyScalar(0.5)
    f32.dtype = "float32"
    found = rc.json_problems({"a": frozenset({"x"}), "b": [f32, NumpyScalar(0.5)],
                              "c": np.zeros(2)})
    assert [loc for loc, _ in found] == [("a",), ("b", 0), ("c",)]


# --------------------------------------------------------------------------- helpers


def test_samples_are_assigned_to_intervals_in_any_unit_and_after_rounding() -> None:
    events = trace(read(0.0), read(0.0123456), read(1.0), read(1.0021), pair(1, 2), pair(3, 4))
    analysis = analyse(events)
    intervals = list(analysis.intervals)
    assert analysis.match([0.002100, 0.012346]).matched == intervals
    assert analysis.match([12.3456]).matched == intervals[:1]
    assert not analysis.match([0.5]).complete


def test_device_names() -> None:
    assert rc.device_matches("cpu", "cpu", "cpu")
    assert rc.device_matches("TFRT_CPU_0", "cpu", "cpu")
    assert rc.device_matches("cuda:0", "NVIDIA H200", "gpu")
    assert not rc.device_matches("NVIDIA A100-SXM4-40GB", "cpu", "cpu")
    assert not rc.device_matches("gpu", "cpu", "cpu")


def test_lower_first_keeps_acronyms_and_code() -> None:
    assert lower_first("The result") == "the result"
    assert lower_first("NaN values") == "NaN values"
    assert lower_first("`fn` raised") == "`fn` raised"


# --------------------------------------------------------------------------- end to end


def _request(placed_inside: bool, readback: str) -> list[Any]:
    placement = [put([1, 2])] if placed_inside else []
    before = [] if placed_inside else [put([1, 2])]
    start = len(before) + 1
    call_seq = start + len(placement) + 1
    body = [*placement, call([1, 2]), ret(call_seq, [9]), wait([9], how=readback)]
    stop = start + len(body) + 1
    return trace(*before, read(0.0), *body, read(0.01),
                 {"kind": "ready", "read": stop, "call": call_seq, "ready": True},
                 pair(start, stop))


def test_placement_and_readback_inside_pass() -> None:
    ctx = context("exercise-8", _request(True, "numpy.asarray"), NO_VALUE)
    assert phases.placement_included(ctx, "main").status == "passed"
    assert phases.readback_included(ctx, "main").status == "passed"


def test_placement_before_the_timer_and_a_plain_wait_fail() -> None:
    ctx = context("exercise-8", _request(False, "block_until_ready"), NO_VALUE)
    placement = phases.placement_included(ctx, "main")
    assert placement.status == "failed" and "none of the inputs" in placement.message
    assert phases.readback_included(ctx, "main").status == "failed"


def test_numpy_arguments_count_as_placed() -> None:
    events = trace(read(0.0), call([], numpy_args=2), ret(2, [9]),
                   wait([9], how="numpy.asarray"), read(0.01), pair(1, 5))
    ctx = context("exercise-8", events, NO_VALUE)
    assert phases.placement_included(ctx, "main").status == "passed"


# --------------------------------------------------------------------------- exercise-5


def _timed(n: int, compile_in: set[int]) -> list[dict[str, Any]]:
    raw: list[dict[str, Any]] = []
    for i in range(n):
        start = len(raw) + 1
        raw.append(read(float(i)))
        if i in compile_in:
            raw.append(compile_event())
        raw.append(call([1]))
        raw.append(ret(len(raw), [10 + i]))
        raw.append(wait([10 + i]))
        raw.append(read(i + 0.5))
        raw.append(pair(start, len(raw)))
    return raw


def test_jitted_allows_one_compile_in_the_first_interval_only() -> None:
    once = context("exercise-5", trace(*_timed(3, {0})), NO_VALUE)
    assert c.jitted(once, "main").status == "passed"
    again = context("exercise-5", trace(*_timed(3, {0, 1, 2})), NO_VALUE)
    assert c.jitted(again, "main").status == "failed"


def test_jitted_fails_an_eager_workload() -> None:
    events = trace(read(0.0), wait([5]), read(0.5), pair(1, 3))
    outcome = c.jitted(context("exercise-5", events, NO_VALUE), "main")
    assert outcome.status == "failed" and "eagerly" in outcome.message


def _with_callbacks(n: int, in_interval: set[int]) -> list[dict[str, Any]]:
    """``n`` timed calls, each waited; in the intervals ``in_interval`` a host callback
    (made on line 9) ran inside the call, recorded before the call's own record as the
    child records it (a call is recorded once it returned)."""
    raw: list[dict[str, Any]] = []
    for i in range(n):
        start = len(raw) + 1
        raw.append(read(float(i)))
        if i in in_interval:
            raw.append({"kind": "callback", "line": 9})
        raw.append(call([1]))
        raw.append(ret(len(raw), [10 + i]))
        raw.append(wait([10 + i]))
        raw.append(read(i + 0.5))
        raw.append(pair(start, len(raw)))
    return raw


def test_a_timed_program_that_calls_back_to_the_host_is_no_jitted_computation() -> None:
    clean = context("exercise-5", trace(*_with_callbacks(3, set())), NO_VALUE)
    assert c.jitted(clean, "main").status == "passed"
    assert c.interval_clean(clean, "main").status == "passed"
    ctx = context("exercise-5", trace(*_with_callbacks(3, {1})), NO_VALUE)
    outcome = c.jitted(ctx, "main")
    assert outcome.status == "failed"
    assert outcome.message.startswith("Timed interval 2: the compiled program of the call "
                                      "on line 2 calls back to the host")
    assert "made on line 9" in outcome.message and outcome.hint
    clean_check = c.interval_clean(ctx, "main")
    assert clean_check.status == "failed" and "made on line 9" in clean_check.message


def _with_host_cpu(extra_ms: list[float]) -> list[dict[str, Any]]:
    """One waited call per interval with CPU stamps: 10 us of glue, the call's 0.1 ms,
    its 0.2 ms wait, then ``extra_ms[i]`` of CPU time no operation explains (what a
    coarse clock's tick or the learner's NumPy work reads as)."""
    raw: list[dict[str, Any]] = []
    cpu = 0
    for i, extra in enumerate(extra_ms):
        start = len(raw) + 1
        raw.append({**read(float(i)), "cpu": cpu})
        raw.append({**call([1]), "cpu": cpu + 10_000})
        raw.append({**ret(len(raw), [10 + i]), "cpu": cpu + 110_000})
        raw.append({**wait([10 + i]), "cpu": cpu + 120_000, "cpu_end": cpu + 320_000})
        cpu += 330_000 + int(extra * 1e6)
        raw.append({**read(i + 0.5), "cpu": cpu})
        raw.append(pair(start, len(raw)))
        cpu += 50_000
    return raw


def _hello(step_ns: int | None) -> Hello:
    return Hello(type="hello", jax_version="0", jaxlib_version="0", numpy_version="0",
                 python_version="3", backend="tpu", device="TPU v5 lite", platform="tpu",
                 cpu_clock_step_ns=step_ns)


def test_one_tick_of_a_coarse_cpu_clock_is_not_the_learners_work() -> None:
    # On the chip's gVisor kernel the thread CPU clock moves in 10 ms ticks: one tick
    # landing in the glue of a correct interval read as 10 ms of unexplained host work.
    tick = [0.0, 0.0, 10.0, 0.0, 0.0]
    for step in (None, 1_000):  # unmeasured, or a fine clock: 10 ms is work, as before
        ctx = context("exercise-5", trace(*_with_host_cpu(tick)), NO_VALUE,
                      hello=_hello(step))
        outcome = c.interval_clean(ctx, "main")
        assert outcome.status == "failed" and "10.0 ms of host CPU time" in outcome.message
    coarse = context("exercise-5", trace(*_with_host_cpu(tick)), NO_VALUE,
                     hello=_hello(10_000_000))
    assert c.interval_clean(coarse, "main").status == "passed"
    # Work of more than a step in every sample still fails on the coarse clock.
    heavy = context("exercise-5", trace(*_with_host_cpu([30.0] * 5)), NO_VALUE,
                    hello=_hello(10_000_000))
    outcome = c.interval_clean(heavy, "main")
    assert outcome.status == "failed" and "30.0 ms of host CPU time" in outcome.message


def test_reference_with_any_jax_event_fails() -> None:
    host = {"t": "ndarray", "dtype": "float64", "shape": [0], "data": ""}
    ctx = context("exercise-5", trace(compile_event()), host)
    outcome = c.reference_is_numpy(ctx, "main", (), "ref")
    assert outcome.status == "failed" and "line 2" in outcome.message
