"""The measurement contract (rubric/contract.py): every exercise's interval checks are
derived from its declared lists of samples, and the identity the trace records (which
callable, which static values, host or device source, derived waits) decides them.
Hand-written traces, no child."""

from __future__ import annotations

import enum
from typing import Any

import numpy as np
import pytest
from test_samples_measured import F, Trace, context

from syncgrade.analysis import PHASES
from syncgrade.courses import EXERCISES
from syncgrade.rubric import Outcome
from syncgrade.rubric import checks as c
from syncgrade.rubric import checks_phases as phases
from syncgrade.rubric.contract import TITLES, WARM, Samples, derived_checks
from syncgrade.schema import catalogue


def one_sample(*, fn: int = 1, static: list[Any] | None = None, wait: str = "output",
               ready: bool = True, readback: bool = False,
               compile_after: bool = False) -> tuple[Trace, list[float]]:
    """A warm-up, then one interval: start, a call, a wait (on the output, on a value
    computed from it, or none), stop."""
    t = Trace()
    t.timed_call(wait=True)  # the warm-up, waited
    t.clock += 0.001
    start, v0 = t.read()
    fields: dict[str, Any] = {"fn": fn}
    if static is not None:
        fields["static"] = static
    call = t.add("call", name="fn", site=[F, 2], inputs=[1, 2], numpy_args=0, **fields)
    t.token += 1
    out = t.token
    t.add("return", call=call, outputs=[out])
    if compile_after:
        t.add("compile", event="backend_compile_duration", fun="jit(reduce_sum)",
              site=[F, 3])
    if wait == "output":
        t.add("wait", how="block_until_ready", arrays=[out], site=[F, 3])
    elif wait == "derived":
        t.add("wait", how="host conversion", arrays=[out + 1], site=[F, 3])
    if readback:
        t.add("wait", how="numpy.asarray", arrays=[out], site=[F, 4])
    t.clock += 0.004
    stop, v1 = t.read()
    t.ready(stop, call, ready=ready)
    t.pair(start, stop)
    return t, [float(v1) - float(v0)]


def judge(check: Any, trace: Trace, samples: list[float], **params: Any) -> Any:
    return check(context(trace.events(), [None, samples]), "main", (1,), **params)


def test_every_exercise_with_samples_has_every_derived_check_it_needs() -> None:
    for exercise in EXERCISES.values():
        if not exercise.samples:
            continue
        ids = [check.id for check in exercise.checks]
        assert len(ids) == len(set(ids)), exercise.id
        derived = {check.id for check in derived_checks(exercise.samples, exercise.calls)}
        assert derived <= set(ids), (exercise.id, derived - set(ids))
        for check_id in ("samples-measured", "times-the-call", "sync-before-stop"):
            assert check_id in ids, (exercise.id, check_id)
        assert "placement-excluded" in ids or "placement-included" in ids
        assert "warmup-excluded" in ids or "first-call-includes-compile" in ids


def test_every_exercise_that_hands_a_callable_runs_the_probe() -> None:
    with_probe = {e.id for e in EXERCISES.values() if any(s.probe for s in e.samples)}
    assert {"exercise-1", "exercise-3", "exercise-8", "exercise-9"} <= with_probe


def test_a_contract_is_checked_when_declared() -> None:
    with pytest.raises(ValueError, match="unknown phase"):
        Samples("main", (1,), 3, phases=WARM | {"warp drive"})
    with pytest.raises(ValueError, match="dispatch, device execution and output wait"):
        Samples("main", (1,), 3, phases=frozenset({"dispatch"}))
    with pytest.raises(ValueError, match="at least 1"):
        Samples("main", (1,), 0)
    first = Samples("main", (0,), 3, phases=WARM | {"compilation"})
    with pytest.raises(ValueError, match="warm list"):
        derived_checks([first], [])


def test_declared_phases_pick_the_inclusion_or_exclusion_check() -> None:
    warm = {s.id for s in derived_checks([Samples("main", (1,), 3)], [])}
    assert {"placement-excluded", "warmup-excluded", "sync-before-stop"} <= warm
    assert not warm & {"placement-included", "readback-included",
                       "first-call-includes-compile"}
    end_to_end = Samples("main", (1,), 3, phases=frozenset(PHASES) - {"compilation"})
    e2e_ids = {s.id for s in derived_checks([end_to_end], [])}
    assert {"placement-included", "readback-included"} <= e2e_ids
    assert "placement-excluded" not in e2e_ids
    assert set(TITLES) >= warm | e2e_ids


def test_grade_list_shows_each_declared_contract() -> None:
    shown = {e.id: e.contracts for e in catalogue().exercises}
    assert [c.phases for c in shown["exercise-7"] if not c.probe] == [
        ["compilation", "dispatch", "device execution", "output wait"],
        ["dispatch", "device execution", "output wait"]]
    # One entry per fixed static value, never the value: the settings are the grader's.
    assert [c.static for c in shown["exercise-9"] if not c.probe] == [["hidden"]] * 3
    assert "input placement" in shown["exercise-8"][0].phases


def test_times_the_call_wants_the_callable_the_grader_handed_over() -> None:
    t, samples = one_sample()
    assert judge(c.times_the_call, t, samples, fn=None).status == "passed"
    t, samples = one_sample(fn=0)  # the learner's own copy, or a new jax.jit(fn)
    other = judge(c.times_the_call, t, samples, fn=None)
    assert other.status == "failed" and "another callable" in other.message
    assert judge(c.times_the_call, t, samples, fn="").status == "passed"  # any jit


def test_times_the_call_wants_the_declared_static_value() -> None:
    t, samples = one_sample(static=[96])
    assert judge(c.times_the_call, t, samples, static=(96,)).status == "passed"
    stale = judge(c.times_the_call, t, samples, static=(384,))
    assert stale.status == "failed" and "another static argument value" in stale.message
    # Neither the value timed nor the setting's value (both the grader's) is shown.
    assert "384" not in stale.message + stale.hint and "96" not in stale.message + stale.hint


class Size(enum.IntEnum):
    BLOCK = 96


@pytest.mark.parametrize("declared", [(np.int64(96),), (96,), (Size.BLOCK,)])
def test_times_the_call_compares_static_values_by_value(declared: tuple[Any, ...]) -> None:
    # The child records np.int64(96) and an enum member by value (instrument.static_value):
    # one program for jax, one value here, whichever way either side spelled it.
    t, samples = one_sample(static=[96])
    assert judge(c.times_the_call, t, samples, static=declared).status == "passed"
    t, samples = one_sample(static=[[2, 3]])
    assert judge(c.times_the_call, t, samples, static=((2, np.int32(3)),)).status == "passed"


def test_times_the_call_wants_the_samples_in_the_order_taken() -> None:
    t = Trace()
    diffs = []
    for work in (0.003, 0.006, 0.009):
        start, v0 = t.read()
        call = t.timed_call(wait=True)
        t.clock += work
        stop, v1 = t.read()
        t.ready(stop, call, ready=True)
        t.pair(start, stop)
        diffs.append(float(v1) - float(v0))
    assert judge(c.times_the_call, t, diffs).status == "passed"
    reordered = judge(c.times_the_call, t, sorted(diffs, reverse=True))
    assert reordered.status == "failed" and "order they were taken" in reordered.message


def _first_and_warm_trace(first: int, warm: int) -> tuple[Trace, list[float], list[float]]:
    """``first`` intervals that each compile and wait, then a waited warm-up and ``warm``
    warm intervals; returns the trace and each list's differences, in the order taken."""
    t = Trace()
    lists: tuple[list[float], list[float]] = ([], [])
    for compiles, diffs in ((True, lists[0]), (False, lists[1])):
        if not compiles:
            t.timed_call(wait=True)  # the warm list's warm-up, waited, outside the timer
        for k in range(first if compiles else warm):
            start, v0 = t.read()
            if compiles:
                t.add("compile", event="backend_compile_duration", fun="jit(fn)", site=[F, 2])
            call = t.timed_call(wait=True)
            t.clock += 0.001 * (k + 1)  # distinct durations: sorting reorders them
            stop, v1 = t.read()
            t.ready(stop, call, ready=True)
            t.pair(start, stop)
            diffs.append(float(v1) - float(v0))
    return t, *lists


@pytest.mark.parametrize("sorted_list", ["first_call_s", "warm_s"])
def test_a_first_call_or_warm_list_reported_sorted_fails_times_the_call(
        sorted_list: str) -> None:
    # exercise-7 judges each list on the intervals its split assigns it (in time order,
    # with no sample list): the order the samples were reported in is judged on the list
    # itself, as every other exercise's is (a learner's `warm_s.sort()` for percentiles).
    exercise = EXERCISES["exercise-7"]
    spec = next(check for check in exercise.checks if check.id == "times-the-call")
    t, first, warm = _first_and_warm_trace(3, 5)
    report = {"first_call_s": first, "warm_s": warm}
    assert spec.fn(context(t.events(), report, "exercise-7"), **spec.params).status == "passed"
    report[sorted_list] = sorted(report[sorted_list], reverse=True)
    outcome = spec.fn(context(t.events(), report, "exercise-7"), **spec.params)
    assert outcome.status == "failed", outcome.message
    assert outcome.message.startswith(f"`{sorted_list}`: ")
    assert "order they were taken" in outcome.message


def test_a_readback_inside_is_a_phase_the_contract_must_declare() -> None:
    t, samples = one_sample(readback=True)
    inside = judge(c.times_the_call, t, samples, host_transfer=False)
    assert inside.status == "failed" and "reads the output back to the host" in inside.message
    assert judge(c.times_the_call, t, samples, host_transfer=True).status == "passed"


def test_a_wait_on_a_value_computed_from_the_output_counts_when_proven_ready() -> None:
    t, samples = one_sample(wait="derived", ready=True)
    assert judge(c.sync_before_stop, t, samples).status == "passed"
    # The same wait with the output still running at the stop read: not a wait on it.
    t, samples = one_sample(wait="derived", ready=False)
    assert judge(c.sync_before_stop, t, samples).status == "failed"
    # No wait at all, the output ready by luck: still no wait.
    t, samples = one_sample(wait="none", ready=True)
    assert judge(c.sync_before_stop, t, samples).status == "failed"


def test_a_compilation_after_the_timed_call_returned_belongs_to_the_wait() -> None:
    t, samples = one_sample(wait="derived", compile_after=True)
    assert judge(c.warmup_excluded, t, samples).status == "passed"
    interval = context(t.events(), [None, samples]).analysis("main").intervals[-1]
    assert interval.compiles and not interval.work_compiles
    assert "compilation" not in interval.phases()


def test_re_placing_device_arrays_is_a_placement_but_no_host_transfer() -> None:
    t = Trace()
    start, v0 = t.read()
    t.add("placement", arrays=[1, 2], site=[F, 2], host=0)
    call = t.timed_call(wait=True)
    stop, v1 = t.read()
    t.ready(stop, call, ready=True)
    t.pair(start, stop)
    samples = [float(v1) - float(v0)]
    assert judge(c.placement_excluded, t, samples).status == "failed"  # an explicit put
    included = judge(phases.placement_included, t, samples)
    assert included.status == "failed"  # nothing came from the host
    interval = context(t.events(), [None, samples]).analysis("main").intervals[0]
    assert interval.placements and not interval.host_placements


def _unwaited_probe_outcome(busy_s: float) -> Outcome:
    """covers-device-work on one probe sample with no wait, ``busy_s`` long."""
    t = Trace()
    start, v0 = t.read()
    call = t.timed_call(wait=False)
    t.clock += busy_s
    stop, v1 = t.read()
    t.ready(stop, call, ready=True)
    t.pair(start, stop)
    ctx = context(t.events(), [None, [float(v1) - float(v0)]])
    ctx.frames["main"] = ctx.frames["main"].model_copy(update={"probe_seconds": 0.1})
    return c.covers_device_work(ctx, "main", (1,))


def test_a_long_probe_sample_without_a_wait_does_not_cover_the_device_work() -> None:
    outcome = _unwaited_probe_outcome(0.2)  # the machine was busy: long, but nothing waited
    assert outcome.status == "failed" and "nothing in sample 1 waited" in outcome.message
    assert "before the timer stopped on line 1" in outcome.message  # the learner's stop


def test_an_unwaited_probe_sample_reads_the_same_long_or_short() -> None:
    """What the code did picks the words, not how long load made the sample: a golden
    report of a no-wait file must not change with the machine's load."""
    short, long = _unwaited_probe_outcome(0.0001), _unwaited_probe_outcome(0.2)
    assert short.status == long.status == "failed"
    assert short.message.split(" (your shortest")[0] == long.message.split(" (your shortest")[0]
