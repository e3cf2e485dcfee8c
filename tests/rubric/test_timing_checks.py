"""The timing checks on simulated traces (pure: no child process, milliseconds per test).

A small model of one grader call stands in for the child: a host clock, a device that runs
jitted calls in dispatch order (each takes ``work`` seconds, slowed by ``load``), and the
recorder's events (timer reads with a readiness record after each, calls and returns,
waits recorded when they return, placements, compilations of a new specialization).
Each style below mirrors one corpus file, and the checks of exercise-1 and exercise-3 must
fail exactly the ids that file's ``# expect-fail:`` header names (among the checks judged
here), whatever the seed (clock values, durations) and machine load.

This is what lets ``tests/courses/test_corpus.py`` grade most files once per CI run: the only
inputs of these checks that vary from one grade to the next are clock values, durations
and readiness bits, and here they vary over seeds and loads while the verdicts may not.
``test_readiness_never_decides_a_missing_wait`` pins the one race (was the output ready
at the stop read?) for every style that has no wait on the timed output.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest
from builders import F, context, validated
from corpus_support import corpus_dir, read_expectation

from syncgrade.analysis import UNRECORDED_BLOCK_BOUND_NS, Interval
from syncgrade.courses import builtin_course, get_exercise
from syncgrade.rubric.base import Context, Outcome, Skip
from syncgrade.rubric.checks import sample_count
from syncgrade.rubric.checks_intervals import (
    CPU_EXCESS_ALLOWANCE_NS,
    DURATION_NOISE_FACTOR,
    DURATION_NOISE_S,
    LATENESS_CAP_S,
    InterpreterHolds,
    blocking_allowance_ns,
    blocking_interval,
    compile_seconds,
    cpu_work_interval,
    margins_bound,
    measured_bound,
    measured_flaw,
    net_runs,
    time_lost_inside,
)
from syncgrade.trace import CallFrame, Compile, ReferenceTiming

PROBE_S = 0.1  # the calibrated probe duration the grader reports (exercise-1 and -3)
MAIN_WORK_S = 0.004  # the hidden workload's device time in this model
GIVEN = [1, 2]  # tokens of the placed, ready inputs the grader hands over (exercise-1)
SEEDS = (0, 1, 2)
LOADS = (1.0, 4.0)  # load only slows the device and the host down


class Sim:
    """One grader call: a host clock, an in-order device, and the recorder's events."""

    def __init__(self, seed: int, work: float, load: float, ns: bool = False,
                 compiled: tuple[str, ...] = ()) -> None:
        self.rng = np.random.default_rng(seed)
        self.raw: list[dict[str, Any]] = []
        self.now = 1000.0 + float(self.rng.uniform(0, 10))
        self.device_free = self.now
        self.work, self.load, self.ns = work, load, ns
        self.finish: dict[int, float] = {}  # array token -> when the device completes it
        self.token = 100
        self.latest: tuple[int, int] | None = None  # (call seq, output token)
        self.compiled = set(compiled)

    def _add(self, kind: str, **fields: Any) -> int:
        seq = len(self.raw) + 1
        self.raw.append({"seq": seq, "kind": kind, **fields})
        return seq

    def _host(self, seconds: float) -> None:
        self.now += seconds * self.load * float(self.rng.uniform(0.8, 1.25))

    def given(self, arrays: list[int]) -> None:
        for a in arrays:
            self.finish[a] = self.now
        self._add("given", arrays=arrays)

    def read(self, line: int = 10) -> tuple[int, float | int]:
        self._host(1e-6)
        value: float | int = int(self.now * 1e9) if self.ns else self.now
        clock = "perf_counter_ns" if self.ns else "perf_counter"
        seq = self._add("timer", clock=clock, value=value, site=[F, line])
        if self.latest is not None:
            call, out = self.latest
            self._add("ready", read=seq, call=call, ready=self.now >= self.finish[out])
        return seq, value

    def put(self, count: int, line: int = 5) -> list[int]:
        arrays = []
        for _ in range(count):
            self.token += 1
            self.finish[self.token] = self.now + 50e-6 * self.load
            arrays.append(self.token)
        self._add("placement", arrays=arrays, site=[F, line])
        self._host(10e-6)
        return arrays

    def call(self, inputs: list[int], numpy_args: int = 0, line: int = 11) -> int:
        """Dispatch ``fn``; a specialization not compiled yet (placed or NumPy arguments)
        traces and compiles first, on the host. Returns the output's token."""
        key = "numpy" if numpy_args else "placed"
        if key not in self.compiled:
            self._add("compile", event="jaxpr_trace_duration", fun="fn", site=[F, line])
            self._host(0.05)
            self.compiled.add(key)
        seq = self._add("call", name="fn", site=[F, line], inputs=inputs,
                        numpy_args=numpy_args, fn=1)
        ready = max([self.now, self.device_free, *(self.finish[a] for a in inputs)])
        done = ready + self.work * self.load * float(self.rng.uniform(1.0, 1.3))
        self.device_free = done
        self.token += 1
        self.finish[self.token] = done
        self._add("return", call=seq, outputs=[self.token])
        self.latest = (seq, self.token)
        self._host(20e-6)  # dispatch returns long before the work is done
        return self.token

    def wait(self, arrays: list[int], how: str = "block_until_ready", line: int = 12) -> None:
        self.now = max([self.now, *(self.finish[a] for a in arrays)])
        self._host(2e-6)
        self._add("wait", how=how, arrays=arrays, site=[F, line])  # recorded on return

    def eager(self, inputs: list[int], line: int = 12) -> int:
        """An eager operation on ``inputs`` (``out.sum()``), dispatched after everything
        before it; recorded after it returned. Returns its result's token."""
        self.token += 1
        done = max([self.device_free, *(self.finish[a] for a in inputs)]) + 10e-6
        self.device_free = self.finish[self.token] = done
        self._add("eager", fun="sum", arrays=[*inputs, self.token], inputs=len(inputs),
                  site=[F, line])
        return self.token

    def sleep(self, seconds: float, line: int = 12) -> None:
        self._add("sleep", seconds=seconds, site=[F, line])  # recorded before it sleeps
        self.now += seconds * float(self.rng.uniform(1.0, 1.1))  # never shorter

    def pair(self, start: int, stop: int) -> None:
        self._add("pair", start=start, stop=stop)

    def events(self) -> list[Any]:
        return validated(self.raw)


# --------------------------------------------------------------------------- styles

WAITED = {"method_wait", "perf_counter_ns", "device_put_inside", "numpy_inputs_inside",
          "milliseconds", "nanoseconds_unconverted", "drops_first_sample", "timer_after_call",
          "wait_after_stop", "samples_as_array"}


def timed_loop(sim: Sim, style: str, repeats: int, inputs: list[int]) -> list[Any]:
    """exercise-1's ``synchronized_samples`` (and exercise-3's timed loop) in ``style``;
    returns the samples the learner would return."""
    if style == "whole_loop_one_interval":
        start, v0 = sim.read()
        for _ in range(repeats):
            sim.wait([sim.call(inputs)])
        stop, v1 = sim.read(13)
        sim.pair(start, stop)
        return [float(v1 - v0) / repeats] * repeats
    diffs: list[float | int] = []
    previous: int | None = None
    for _ in range(repeats):
        if style == "timer_after_call":
            out = sim.call(inputs)
            start, v0 = sim.read()
            sim.wait([out])
        else:
            start, v0 = sim.read()
            args, numpy_args = inputs, 0
            if style == "device_put_inside":
                args = sim.put(2, line=11)
            if style == "numpy_inputs_inside":
                args, numpy_args = [], 2
            out = sim.call(args, numpy_args)
            if style in WAITED and style != "wait_after_stop":
                sim.wait([out])
            elif style == "numpy_asarray_wait":
                sim.wait([out], how="numpy.asarray")
            elif style == "sleep_instead_of_wait":
                sim.sleep(0.001)
            elif style == "long_sleep_instead_of_wait":
                sim.sleep(0.3)
            elif style == "wait_on_input":
                sim.wait(inputs)
            elif style == "wait_on_stale_output" and previous is not None:
                sim.wait([previous])
        stop, v1 = sim.read(13)
        if style == "wait_after_stop":
            sim.wait([out], line=14)
        sim.pair(start, stop)
        diffs.append(v1 - v0)
        previous = out
    if style == "milliseconds":
        return [float(d) * 1e3 for d in diffs]
    if style == "nanoseconds_unconverted":
        return diffs  # integers from perf_counter_ns
    samples = [d / 1e9 for d in diffs] if sim.ns else [float(d) for d in diffs]
    if style == "drops_first_sample":
        return samples[1:]
    if style == "samples_as_array":
        return np.array(samples)  # type: ignore[return-value]
    return samples


def exercise_1(style: str, seed: int, load: float, work: float,
               repeats: int) -> tuple[list[Any], list[Any]]:
    """One call of exercise-1's ``synchronized_samples``: (events, returned value)."""
    ns = style in ("perf_counter_ns", "nanoseconds_unconverted")
    # The grader warmed ``fn`` on arrays placed without naming a device (uncommitted):
    # NumPy arguments of the same shapes reuse that compilation (no compile events).
    sim = Sim(seed, work, load, ns=ns, compiled=("placed", "numpy"))
    sim.given(GIVEN)
    sim.read(3)  # an unrelated read first: pairing reads in order would be off by one
    samples = timed_loop(sim, style, repeats, GIVEN)
    return sim.events(), [None, samples]


def exercise_3(style: str, seed: int, load: float, work: float,
               repeats: int) -> tuple[list[Any], list[Any]]:
    """One call of exercise-3's ``device_resident_benchmark``: (events, returned value).
    ``fn`` is jitted but never compiled for these shapes; ``host_args`` are NumPy."""
    sim = Sim(seed, work, load, ns=style == "nanoseconds_unconverted")
    loop_style = {"nanoseconds_unconverted": "nanoseconds_unconverted",
                  "no_output_wait": "no_wait"}.get(style, "method_wait")
    if style == "numpy_args_never_placed":
        sim.wait([sim.call([], numpy_args=2, line=7)], line=7)
        samples = timed_loop(sim, "numpy_inputs_inside", repeats, [])
        return sim.events(), [None, samples]
    if style == "warmup_on_host_args":
        sim.wait([sim.call([], numpy_args=2, line=7)], line=7)
    args: list[int] = [] if style == "stub_unchanged" else sim.put(2)
    if style not in ("inputs_not_ready", "stub_unchanged"):
        sim.wait(args, line=6)
    if style == "inputs_not_ready":
        sim.call(args, line=7)  # a warm-up dispatched (and compiled), never waited on
    elif style in ("place_wait_warm", "no_output_wait", "nanoseconds_unconverted",
                   "placement_inside_interval"):
        sim.wait([sim.call(args, line=7)], line=7)
    if style in ("placement_inside_interval", "stub_unchanged"):
        loop_style = "device_put_inside"
    samples = timed_loop(sim, loop_style, repeats, args)
    return sim.events(), [None, samples]


EXERCISE_1 = {
    "correct": ["method_wait", "perf_counter_ns"],
    "flawed": ["device_put_inside", "drops_first_sample", "long_sleep_instead_of_wait",
               "milliseconds", "nanoseconds_unconverted", "no_wait", "numpy_asarray_wait",
               "numpy_inputs_inside",
               "samples_as_array", "sleep_instead_of_wait", "timer_after_call",
               "wait_after_stop", "wait_on_input", "wait_on_stale_output",
               "whole_loop_one_interval"],
}
EXERCISE_3 = {
    "correct": ["place_wait_warm"],
    "flawed": ["inputs_not_ready", "nanoseconds_unconverted", "no_output_wait", "no_warmup",
               "numpy_args_never_placed", "placement_inside_interval", "stub_unchanged",
               "warmup_on_host_args"],
}
BUILDERS = {"exercise-1": exercise_1, "exercise-3": exercise_3}
exercise_1_rubric = builtin_course().module("exercise-1")  # the declarations' constants
exercise_3_rubric = builtin_course().module("exercise-3")
REPEATS = {"exercise-1": exercise_1_rubric.REPEATS, "exercise-3": exercise_3_rubric.REPEATS}
# What a child cannot fake here: `runs` needs a real load, `numpy-match` real values.
NOT_JUDGED = {"runs", "numpy-match"}


def grade(exercise: str, style: str, seed: int, load: float,
          readiness: bool | None = None) -> dict[str, Outcome]:
    """Every judged check of ``exercise`` on the simulated main and probe calls of
    ``style`` (as the engine evaluates them: a :class:`Skip` is ``skipped``).
    ``readiness`` overrides every readiness record (``None``: the model's)."""
    build = BUILDERS[exercise]
    main_events, main_value = build(style, seed, load, MAIN_WORK_S, REPEATS[exercise])
    probe_events, probe_value = build(style, seed + 100, load, PROBE_S, 2)
    if readiness is not None:
        main_events = [e.model_copy(update={"ready": readiness}) if e.kind == "ready" else e
                       for e in main_events]
        probe_events = [e.model_copy(update={"ready": readiness}) if e.kind == "ready" else e
                        for e in probe_events]
    frames = {
        "main": CallFrame(type="call", id="main", ok=True, events=main_events),
        "probe": CallFrame(type="call", id="probe", ok=True, events=probe_events,
                           probe_seconds=PROBE_S),
    }
    ctx = context(exercise, [], frames=frames,
                  values={"main": main_value, "probe": probe_value})
    outcomes = {}
    for spec in get_exercise(exercise).checks:
        if spec.id in NOT_JUDGED:
            continue
        try:
            outcomes[spec.id] = spec.fn(ctx, **spec.params)
        except Skip as skip:
            outcomes[spec.id] = Outcome.skip(str(skip))
    return outcomes


def expected(exercise: str, kind: str, style: str) -> frozenset[str]:
    path = corpus_dir(exercise) / kind / f"{style}.py"
    return read_expectation(path) - NOT_JUDGED


CASES = [(ex, kind, style) for ex, table in (("exercise-1", EXERCISE_1),
                                             ("exercise-3", EXERCISE_3))
         for kind, styles in table.items() for style in styles]


def test_every_style_mirrors_a_corpus_file() -> None:
    for exercise, kind, style in CASES:
        assert (corpus_dir(exercise) / kind / f"{style}.py").is_file(), (exercise, style)


@pytest.mark.parametrize("load", LOADS)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("exercise", "kind", "style"), CASES,
                         ids=[f"{e}/{k}/{s}" for e, k, s in CASES])
def test_simulated_style_fails_exactly_what_its_corpus_file_expects(
        exercise: str, kind: str, style: str, seed: int, load: float) -> None:
    outcomes = grade(exercise, style, seed, load)
    failed = {cid for cid, o in outcomes.items() if o.status == "failed"}
    assert failed == expected(exercise, kind, style), {
        cid: o.message for cid, o in outcomes.items() if o.status != "passed"}
    for cid, outcome in outcomes.items():
        if outcome.status == "failed":
            assert outcome.message and outcome.hint, cid


NO_WAIT_ON_OUTPUT = ["no_wait", "sleep_instead_of_wait", "long_sleep_instead_of_wait",
                     "wait_on_input", "wait_on_stale_output", "wait_after_stop"]


@pytest.mark.parametrize("readiness", [True, False])
@pytest.mark.parametrize("style", NO_WAIT_ON_OUTPUT)
def test_readiness_never_decides_a_missing_wait(style: str, readiness: bool) -> None:
    """Whether the device happened to finish by the stop read is the one race in a trace;
    with no wait on the timed output, sync-before-stop fails either way."""
    outcomes = grade("exercise-1", style, 7, 1.0, readiness=readiness)
    assert outcomes["sync-before-stop"].status == "failed"
    failed = {cid for cid, o in outcomes.items() if o.status == "failed"}
    assert failed == expected("exercise-1", "flawed", style)


# --------------------------------------------------------------------------- one check each


def _ctx(exercise: str, main: Sim, value: Any, probe: tuple[Sim, Any] | None = None,
         probe_seconds: float | None = PROBE_S) -> Context:
    frames = {"main": CallFrame(type="call", id="main", ok=True, events=main.events())}
    values = {"main": value}
    if probe is not None:
        frames["probe"] = CallFrame(type="call", id="probe", ok=True, events=probe[0].events(),
                                    probe_seconds=probe_seconds)
        values["probe"] = probe[1]
    return context(exercise, [], frames=frames, values=values)


def _check(exercise: str, check_id: str, ctx: Context) -> Outcome:
    spec = next(s for s in get_exercise(exercise).checks if s.id == check_id)
    try:
        return spec.fn(ctx, **spec.params)
    except Skip as skip:
        return Outcome.skip(str(skip))


def _loop(style: str, repeats: int = 6, work: float = MAIN_WORK_S,
          seed: int = 3) -> tuple[Sim, list[Any]]:
    sim = Sim(seed, work, 1.0, compiled=("placed",))
    sim.given(GIVEN)
    return sim, timed_loop(sim, style, repeats, GIVEN)


def test_sync_before_stop_names_the_stop_line_and_an_unfinished_interval() -> None:
    sim, samples = _loop("no_wait")
    outcome = _check("exercise-1", "sync-before-stop", _ctx("exercise-1", sim, [None, samples]))
    assert outcome.status == "failed"
    assert "still being computed" in outcome.message
    assert "line 13" in outcome.hint
    assert outcome.evidence.timeline is not None


def test_sync_before_stop_names_the_array_a_wrong_wait_was_on() -> None:
    sim, samples = _loop("wait_on_input")
    outcome = _check("exercise-1", "sync-before-stop", _ctx("exercise-1", sim, [None, samples]))
    assert outcome.status == "failed" and "is on a different array" in outcome.message


def test_sync_before_stop_fails_one_bad_interval_among_good_ones() -> None:
    sim = Sim(4, MAIN_WORK_S, 1.0, compiled=("placed",))
    sim.given(GIVEN)
    samples = timed_loop(sim, "method_wait", 5, GIVEN)
    samples += timed_loop(sim, "no_wait", 1, GIVEN)
    outcome = _check("exercise-1", "sync-before-stop", _ctx("exercise-1", sim, [None, samples]))
    assert outcome.status == "failed" and outcome.message.startswith("In interval 6,")


def test_sync_before_stop_trusts_a_stop_read_that_saw_the_output_unfinished() -> None:
    # A wait on the output, yet the readiness record says unfinished at the stop read: the
    # check believes the record (defensive: a wait that did not block is no wait).
    sim, samples = _loop("method_wait")
    for event in sim.raw:
        if event["kind"] == "ready":
            event["ready"] = False
    outcome = _check("exercise-1", "sync-before-stop", _ctx("exercise-1", sim, [None, samples]))
    assert outcome.status == "failed"
    passing, samples = _loop("method_wait")
    assert _check("exercise-1", "sync-before-stop",
                  _ctx("exercise-1", passing, [None, samples])).status == "passed"


def test_times_the_call_zero_and_many_calls_say_which() -> None:
    sim, samples = _loop("timer_after_call")
    zero = _check("exercise-1", "times-the-call", _ctx("exercise-1", sim, [None, samples]))
    assert zero.status == "failed" and "contains no call" in zero.message
    assert "line 10 to line 13" in zero.message
    sim, samples = _loop("whole_loop_one_interval")
    many = _check("exercise-1", "times-the-call", _ctx("exercise-1", sim, [None, samples]))
    assert many.status == "failed" and "contains 6 calls" in many.message
    sim, samples = _loop("method_wait")
    one = _check("exercise-1", "times-the-call", _ctx("exercise-1", sim, [None, samples]))
    assert one.status == "passed" and "6 intervals" in one.message


def test_no_clock_reads_at_all_fail_the_interval_checks() -> None:
    sim = Sim(5, MAIN_WORK_S, 1.0, compiled=("placed",))
    sim.given(GIVEN)
    sim.wait([sim.call(GIVEN)])
    ctx = _ctx("exercise-1", sim, [None, [0.01] * 6])
    for check_id in ("times-the-call", "sync-before-stop"):
        outcome = _check("exercise-1", check_id, ctx)
        assert outcome.status == "failed" and "No timed interval" in outcome.message


def test_placement_excluded_names_the_line_of_a_put_or_a_numpy_argument() -> None:
    sim, samples = _loop("device_put_inside")
    put = _check("exercise-1", "placement-excluded", _ctx("exercise-1", sim, [None, samples]))
    assert put.status == "failed" and "`jax.device_put` on line 11" in put.message
    sim, samples = _loop("numpy_inputs_inside")
    implicit = _check("exercise-1", "placement-excluded",
                      _ctx("exercise-1", sim, [None, samples]))
    assert implicit.status == "failed" and "passes NumPy arrays" in implicit.message
    sim = Sim(6, MAIN_WORK_S, 1.0)
    args = sim.put(2)
    sim.wait(args)
    sim.wait([sim.call(args)])  # placed and warmed before the loop
    samples = timed_loop(sim, "method_wait", 6, args)
    assert _check("exercise-3", "placement-excluded",
                  _ctx("exercise-3", sim, [None, samples])).status == "passed"


def _probe(style: str, load: float = 1.0, seed: int = 8) -> tuple[Sim, list[Any]]:
    sim = Sim(seed, PROBE_S, load, compiled=("placed",))
    sim.given(GIVEN)
    return sim, [None, timed_loop(sim, style, 2, GIVEN)]


def _covers(probe: tuple[Sim, Any], probe_seconds: float | None = PROBE_S) -> Outcome:
    main, value = _loop("method_wait")
    ctx = _ctx("exercise-1", main, [None, value], probe=probe, probe_seconds=probe_seconds)
    return _check("exercise-1", "covers-device-work", ctx)


def test_covers_device_work_passes_a_waited_timer_under_any_load() -> None:
    for load in (1.0, 3.0, 20.0):
        outcome = _covers(_probe("method_wait", load))
        assert outcome.status == "passed", outcome.message
        assert outcome.evidence.facts["known_ms"] == 100.0


def test_covers_device_work_fails_a_timer_stopped_at_dispatch_under_any_load() -> None:
    for load in (1.0, 3.0, 20.0):  # a loaded host dispatches slowly, yet far below 35%
        outcome = _covers(_probe("no_wait", load))
        assert outcome.status == "failed"
        assert "about 100 ms" in outcome.message and "0%" in outcome.message


def test_covers_device_work_threshold_and_its_shortest_sample() -> None:
    sim, _ = _probe("method_wait")
    edge = 0.35 * PROBE_S
    assert _covers((sim, [None, [edge, 0.2]])).status == "passed"
    low = _covers((sim, [None, [0.2, edge * 0.99]]))  # the shortest sample decides
    assert low.status == "failed" and low.evidence.facts["shortest_ms"] == round(edge * 990, 3)


def test_covers_device_work_leaves_odd_samples_to_sample_count() -> None:
    sim, _ = _probe("method_wait")
    assert _covers((sim, [None, [math.nan, 0.1]])).status == "skipped"
    assert _covers((sim, [None, "0.1"])).status == "skipped"
    empty = _covers((sim, [None, []]))
    assert empty.status == "failed" and "No samples" in empty.message
    with pytest.raises(RuntimeError):  # a rubric fault, not the learner's
        _covers((sim, [None, [0.1, 0.1]]), probe_seconds=None)


def test_sample_count_count_type_finiteness_and_units() -> None:
    sim, samples = _loop("method_wait")
    ctx = _ctx("exercise-1", sim, [None, samples])
    assert _check("exercise-1", "sample-count", ctx).status == "passed"
    cases = {
        "5 samples": (samples[:5], "You returned 5 samples; the grader asked for repeats=6."),
        "array": (np.array(samples), "not a list"),
        "nan": ([*samples[:5], math.nan], "Sample 6 of 6 is NaN"),
        "negative": ([-s for s in samples], "not a finite positive number"),
        "ms": ([s * 1e3 for s in samples], "milliseconds"),
        "us": ([s * 1e6 for s in samples], "microseconds"),
    }
    for name, (value, words) in cases.items():
        outcome = _check("exercise-1", "sample-count", _ctx("exercise-1", sim, [None, value]))
        assert outcome.status == "failed", name
        assert words in outcome.message, (name, outcome.message)


def test_sample_count_knows_the_probes_unit_when_no_read_pair_matches() -> None:
    # Samples that match no read pair (made up) but whose median is ~1000x the probe's
    # known duration are milliseconds all the same.
    sim, _ = _probe("method_wait")
    main, value = _loop("method_wait")
    ctx = _ctx("exercise-1", main, [None, value], probe=(sim, [None, [101.3, 99.1]]))
    outcome = sample_count(ctx, call="probe", samples=(1,), count=2)
    assert outcome.status == "failed" and "milliseconds" in outcome.message
    fine = _ctx("exercise-1", main, [None, value], probe=(sim, [None, [0.1013, 0.0991]]))
    assert sample_count(fine, call="probe", samples=(1,), count=2).status == "passed"


def test_samples_measured_rejects_a_loop_mean_and_overhead_subtracted_samples() -> None:
    sim, samples = _loop("whole_loop_one_interval")
    mean = _check("exercise-1", "samples-measured", _ctx("exercise-1", sim, [None, samples]))
    assert mean.status == "failed"
    sim, samples = _loop("method_wait")
    shifted = [s - 2e-5 for s in samples]  # an estimated timer overhead taken off each
    ctx = _ctx("exercise-1", sim, [None, shifted], probe=_probe("method_wait"))
    outcome = _check("exercise-1", "samples-measured", ctx)
    assert outcome.status == "failed" and "Samples 1, 2, 3 and 4" in outcome.message
    ctx = _ctx("exercise-1", sim, [None, samples], probe=_probe("method_wait"))
    assert _check("exercise-1", "samples-measured", ctx).status == "passed"


def _ex3(*steps: str, seed: int = 9) -> tuple[Sim, list[Any]]:
    """exercise-3's main call, built step by step: ``put``, ``wait-args``, ``warm``
    (a call), ``wait-warm``, ``numpy-warm``; then six waited timed calls."""
    sim = Sim(seed, MAIN_WORK_S, 1.0)
    args: list[int] = []
    warm: int | None = None
    for step in steps:
        if step == "put":
            args = sim.put(2)
        elif step == "wait-args":
            sim.wait(args, line=6)
        elif step == "warm":
            warm = sim.call(args, line=7)
        elif step == "wait-warm" and warm is not None:
            sim.wait([warm], line=8)
        elif step == "numpy-warm":
            sim.wait([sim.call([], numpy_args=2, line=7)], line=8)
        elif step == "sleep":
            sim.sleep(0.5)  # long enough on this model's device, and still no evidence
        elif step == "fresh-put-wait":  # fresh inputs placed and waited on, then timed
            args = sim.put(2, line=9)
            sim.wait(args, line=9)
        elif step == "later-call-wait":  # a call dispatched after the warm-up, waited on
            sim.wait([sim.call(args, line=9)], line=9)
        elif step == "sum-wait" and warm is not None:  # float(warm.sum())
            sim.wait([sim.eager([warm], line=9)], how="host conversion", line=9)
    return sim, [None, timed_loop(sim, "method_wait", exercise_3_rubric.REPEATS, args)]


def _warmup(sim: Sim, value: Any) -> Outcome:
    return _check("exercise-3", "warmup-excluded", _ctx("exercise-3", sim, value))


def test_warmup_excluded_passes_a_waited_warm_up() -> None:
    assert _warmup(*_ex3("put", "wait-args", "warm", "wait-warm")).status == "passed"


def test_warmup_excluded_fails_a_compile_in_the_first_interval_and_says_why() -> None:
    none = _warmup(*_ex3("put", "wait-args"))
    assert none.status == "failed" and none.message.startswith("Interval 1 includes compiling")
    assert "no warm-up call of `fn` ran before it" in none.message
    other = _warmup(*_ex3("numpy-warm", "put", "wait-args"))
    assert other.status == "failed" and "on line 7 ran on different arguments" in other.message


def test_warmup_excluded_fails_an_unwaited_warm_up_even_after_a_long_sleep() -> None:
    for steps in (("put", "wait-args", "warm"), ("put", "wait-args", "warm", "sleep")):
        outcome = _warmup(*_ex3(*steps))
        assert outcome.status == "failed", steps
        assert "Nothing waited for the output of the call on line 7" in outcome.message


@pytest.mark.parametrize("readiness", [True, False])
def test_warmup_excluded_follows_order_and_data_not_readiness(readiness: bool) -> None:
    """Whether the warm-up's output happened to be ready at the first start read never
    decides (issue 33, item 6): a wait on freshly placed inputs covers nothing (a
    transfer is not ordered after a computation); a wait on a later call's output, or on
    a value computed from the warm-up's, does."""
    cases = {
        ("put", "wait-args", "warm", "fresh-put-wait"): "failed",
        ("put", "wait-args", "warm", "later-call-wait"): "passed",
        ("put", "wait-args", "warm", "sum-wait"): "passed",
    }
    for steps, status in cases.items():
        sim, value = _ex3(*steps)
        for raw in sim.raw:
            if raw["kind"] == "ready":
                raw["ready"] = readiness
        outcome = _warmup(sim, value)
        assert outcome.status == status, (steps, outcome.message)
        if status == "failed":
            assert "Nothing waited for the output of the call on line 7" in outcome.message


def test_warmup_excluded_fails_a_compile_in_a_later_interval() -> None:
    sim = Sim(10, MAIN_WORK_S, 1.0)
    args = sim.put(2)
    sim.wait(args)
    sim.wait([sim.call(args, line=7)], line=8)
    samples = timed_loop(sim, "method_wait", 3, args)
    sim.compiled.clear()  # a fresh jit in the loop: the next timed call compiles again
    samples += timed_loop(sim, "method_wait", 2, args)
    outcome = _warmup(sim, [None, samples])
    assert outcome.status == "failed" and outcome.message.startswith("Interval 4 includes")
    assert "used the same arguments, but the timed call went to another callable" in (
        outcome.message)


def test_corpus_files_used_here_exist() -> None:
    # The styles' names are corpus file names; a renamed file must rename its style.
    names = {p.stem for e in ("exercise-1", "exercise-3") for p in corpus_dir(e).glob("*/*.py")}
    assert {style for _, _, style in CASES} <= names


# --------------------------------------------------------------------------- sample-duration


NOISE = DURATION_NOISE_FACTOR  # the margins' bound: the margins for a sample's noise
PLUS = DURATION_NOISE_S


def test_the_measured_bound_on_hand_made_runs() -> None:
    # median 11 ms, slowest 12 ms: 2 x 11 + 4 x 1 + 20 ms; the watch's wake-ups and the
    # load average are not its terms (each sample is credited its own measured waits).
    runs = [0.010, 0.011, 0.012]
    assert measured_bound(runs) == pytest.approx(0.022 + 0.004 + 0.020)
    # One slow grader run (load it met) widens the bound by four times its excess.
    slow = measured_bound([0.010, 0.011, 0.031])
    assert slow == pytest.approx(0.022 + 0.080 + 0.020)
    with pytest.raises(ValueError):
        measured_bound([])


def test_the_margins_bound_on_hand_made_runs() -> None:
    # Twice (NOISE) 2 x 11 + 4 x 1 + 20 ms + 2 x the watch's latest wake-up, plus 100 ms
    # (PLUS), measured waits or not.
    runs = [0.010, 0.011, 0.012]

    def bound(late: float | None, load: float | None = None) -> float:
        return margins_bound(runs, late, load)

    assert bound(0.0) == pytest.approx(PLUS + NOISE * (0.022 + 0.004 + 0.020))
    assert bound(0.030) == pytest.approx(PLUS + NOISE * (0.022 + 0.004 + 0.020 + 0.060))
    # The load average is not consulted while the watch measured: it lags a burst.
    assert bound(0.0, 8.0) == pytest.approx(PLUS + NOISE * (0.022 + 0.004 + 0.020))
    # Lateness past the cap is a stall (credited where it fell), not load on every sample.
    capped = 0.022 + 0.004 + 0.020 + 2 * LATENESS_CAP_S
    assert bound(5.0) == pytest.approx(PLUS + NOISE * capped)
    # No wake-up seen: 50 ms per runnable task per CPU (at least one; 10 when unknown).
    assert bound(None, 0.5) == pytest.approx(PLUS + NOISE * (0.022 + 0.004 + 0.050))
    assert bound(None, 4.0) == pytest.approx(PLUS + NOISE * (0.022 + 0.004 + 0.200))
    assert bound(None, None) == pytest.approx(PLUS + NOISE * (0.022 + 0.004 + 0.500))
    with pytest.raises(ValueError):
        margins_bound([], 0.0)


def test_where_waits_are_measured_the_margins_leave_out_the_wake_up_term() -> None:
    # Each sample is credited its own waits for a CPU there: the wake-up term would allow
    # them again, twice over (a loaded machine's capped lateness: 400 ms on every sample).
    runs = [0.010, 0.011, 0.012]
    for late in (0.0, 0.030, LATENESS_CAP_S, None):
        assert margins_bound(runs, late, 8.0, waits_measured=True) == pytest.approx(
            PLUS + NOISE * (0.022 + 0.004 + 0.020))


def test_a_long_pause_in_one_sample_fails_however_late_the_watch_woke() -> None:
    # A 1 s pause in one sample of a ~10 ms call, the watch waking 100 ms late (a loaded
    # machine), the threads' waits measured and none inside: the sample is the pause.
    runs = [0.010, 0.011, 0.040]
    samples = [0.011, 1.011, 0.012, 0.011, 0.013, 0.012]
    outcome = _duration(samples, runs, late=LATENESS_CAP_S)
    assert outcome.status == "failed"
    assert outcome.evidence.facts["bound_ms"] == pytest.approx(100 + NOISE * (22 + 116 + 20))


def test_time_is_credited_only_inside_the_period_it_was_lost_in() -> None:
    # The watch slept from 1.00 to 1.25 s and woke 0.24 s late (or a thread waited 0.24 s
    # for a CPU in that period): 0.24 s lost in it.
    lost = [(1.00, 1.25, 0.24)]
    assert time_lost_inside((0.90, 1.30), lost) == pytest.approx(0.24)  # the whole period
    assert time_lost_inside((1.10, 1.15), lost) == pytest.approx(0.05)  # as much as fits
    assert time_lost_inside((1.20, 1.60), lost) == pytest.approx(0.05)
    assert time_lost_inside((0.10, 0.99), lost) == 0.0  # before it
    assert time_lost_inside((1.26, 2.00), lost) == 0.0  # after it
    two = [(1.00, 1.25, 0.24), (2.00, 2.02, 0.009)]
    assert time_lost_inside((0.0, 3.0), two) == pytest.approx(0.249)


Lost = list[tuple[float, float, float]]
MEASURED: Lost = []  # the threads' waits were read (none long enough to note)


def _duration(samples: list[float], runs: list[float], late: float | None = 0.0,
              missing: str | None = None, load: float | None = None,
              stalls: Lost | None = None, waits: Lost | None = MEASURED,
              own_cpu_s: list[float] | None = None,
              starts: list[float] | None = None,
              threads_cpu_s: list[float] | None = None,
              untimed_runs: list[float] | None = None,
              blocked_s: list[float] | None = None) -> Outcome:
    """``untimed_runs``: the grader's runs of a second candidate, listed first (the most
    called), whose calls are none of the intervals' (a call on other inputs outside them);
    ``runs`` is then the candidate whose calls the intervals hold."""
    sim, measured = _loop("method_wait")
    if own_cpu_s is not None:  # the reading thread's CPU time inside each interval
        _stamp_reads(sim, samples, own_cpu_s, threads_cpu_s, blocked_s)
    timed_calls = [raw["seq"] for raw in sim.raw if raw["kind"] == "call"]
    references = [ReferenceTiming(samples=[1], seconds=runs, starts=starts or [],
                                  missing=missing, runnable_per_cpu=load, calls=timed_calls)]
    if untimed_runs is not None:
        references.insert(0, ReferenceTiming(samples=[1], seconds=untimed_runs,
                                             calls=[max(timed_calls) + 100]))
    # The simulated samples' intervals, with the values given here (the lines are known).
    frames = {"main": CallFrame(type="call", id="main", ok=True, events=sim.events(),
                                reference=references,
                                latest_wake_s=late, stalls=stalls or [], cpu_waits=waits)}
    del measured
    ctx = context("exercise-1", [], frames=frames, values={"main": [None, samples]})
    return _check("exercise-1", "sample-duration", ctx)


def _stamp_reads(sim: Sim, samples: list[float], inside_s: list[float],
                 threads_s: list[float] | None = None,
                 blocked_s: list[float] | None = None) -> None:
    """Clock reads that measure ``samples`` (10 us apart between samples), with CPU
    stamps (nothing else carries one): the reading thread spends ``inside_s[i]`` seconds
    of CPU time between sample ``i``'s two reads, none of it in a recorded operation, and
    with ``threads_s`` one thread the learner's code started spends ``threads_s[i]``;
    with ``blocked_s``, blocked-clock stamps too: ``blocked_s[i]`` seconds blocked
    between the reads, outside every recorded operation (none carries a stamp)."""
    reads = [raw for raw in sim.raw if raw["kind"] == "timer"]
    assert len(reads) == 2 * len(samples) == 2 * len(inside_s)
    threads = threads_s or [0.0] * len(samples)
    now, cpu, others, blocked = 1000.0, 1_000_000, 0, 5_000_000
    for index, (seconds, spent) in enumerate(zip(samples, inside_s, strict=True)):
        reads[2 * index].update(value=now, cpu=cpu)
        if blocked_s is not None:
            reads[2 * index].update(blk=blocked)
            blocked += int(blocked_s[index] * 1e9)
            reads[2 * index + 1].update(blk=blocked)
        now, cpu = now + seconds, cpu + int(spent * 1e9)
        if threads_s is not None:
            reads[2 * index].update(others=others, others_born=1, others_ended=0)
            others += int(threads[index] * 1e9)
            reads[2 * index + 1].update(others=others, others_born=1, others_ended=0)
        reads[2 * index + 1].update(value=now, cpu=cpu)
        now, cpu = now + 10e-6, cpu + 10_000


def test_sample_duration_passes_samples_the_call_explains() -> None:
    runs = [0.004, 0.0041, 0.0045]
    outcome = _duration([0.004, 0.005, 0.0042, 0.012, 0.0041, 0.0043], runs)
    assert outcome.status == "passed", outcome.message
    assert outcome.evidence.facts["call_ms"] == pytest.approx(4.1)


def test_the_reference_is_the_call_the_intervals_hold_not_the_most_called() -> None:
    """A call of the same callable on a much larger input, outside every interval, more
    often than the timed loop: its runs (0.4 s) would explain any sample; the list is
    judged against the call its intervals hold (4 ms) and fails."""
    runs = [0.004, 0.0041, 0.0045]
    samples = [0.004, 0.3, 0.0042, 0.0041, 0.0043, 0.0044]
    idle = [0.0] * len(samples)  # the reads' values measure the samples
    outcome = _duration(samples, runs, own_cpu_s=idle, untimed_runs=[0.4, 0.41, 0.42])
    assert outcome.status == "failed", outcome.message
    assert outcome.evidence.facts["call_ms"] == pytest.approx(4.1)
    # Against the larger call's runs the same samples would pass: the choice decides.
    assert _duration(samples, [0.4, 0.41, 0.42], own_cpu_s=idle).status == "passed"


def test_the_first_compiling_sample_is_credited_its_compilations_not_left_out() -> None:
    """A first-use compile in a sample is credited its phases' own durations (finite and
    positive ones only, at most the sample): work beside it in that sample is judged."""
    phases = [Compile(seq=1, kind="compile", event="jaxpr_trace_duration", seconds=0.02),
              Compile(seq=2, kind="compile", event="backend_compile_duration", seconds=0.05),
              Compile(seq=3, kind="compile", event="backend_compile_duration",
                      seconds=float("nan")),
              Compile(seq=4, kind="compile", event="backend_compile_duration", seconds=-9.0)]
    interval = cast(Interval, SimpleNamespace(compiles=phases))
    assert compile_seconds(interval, 0.9) == pytest.approx(0.07)
    assert compile_seconds(interval, 0.03) == pytest.approx(0.03)  # never past the sample
    forged = [Compile(seq=5, kind="compile", event="backend_compile_duration", seconds=1e9)]
    assert compile_seconds(cast(Interval, SimpleNamespace(compiles=forged)), 0.9) == 0.9


def test_one_inflated_sample_fails_the_list_and_says_by_how_much() -> None:
    runs = [0.004, 0.0041, 0.0045]
    samples = [0.004, 0.3, 0.0042, 0.0041, 0.0043, 0.0044]  # one sample 0.3 s
    outcome = _duration(samples, runs)
    assert outcome.status == "failed"
    assert outcome.message.startswith(
        "Of your 6 samples, 1 took longer than the call can explain; the furthest over, "
        "sample 2, took 300.00 ms")
    assert "the call itself takes about 4.10 ms" in outcome.message
    assert "Your samples' median was 4.25 ms" in outcome.message
    assert outcome.evidence.facts["over_bound"] == 1


def test_the_message_names_the_sample_furthest_over_whatever_its_place() -> None:
    """One sample far over (a one-second pause) and one barely over, in either order: the
    message names the far one, so it reads the same in a run where the marginal sample
    stays under (only the count, masked in the goldens, changes)."""
    runs = [0.004, 0.0041, 0.0045]
    clean = _duration([0.004, 1.0, 0.0042, 0.0041, 0.0043, 0.0044], runs)
    bound_ms = clean.evidence.facts["bound_ms"]
    assert isinstance(bound_ms, float)
    marginal_s = bound_ms / 1e3 + 0.002
    for samples in ([0.004, 1.0, marginal_s, 0.0041, 0.0043, 0.0044],
                    [0.004, marginal_s, 1.0, 0.0041, 0.0043, 0.0044]):
        outcome = _duration(samples, runs)
        assert outcome.status == clean.status == "failed"
        named = samples.index(1.0) + 1
        assert f"the furthest over, sample {named}, took 1000.00 ms" in outcome.message
        assert outcome.evidence.facts["over_bound"] == 2
        assert outcome.evidence.facts["sample"] == named


def test_alternating_heavy_samples_fail_whatever_the_median() -> None:
    runs = [0.004, 0.0041, 0.0045]
    outcome = _duration([0.004, 0.2, 0.004, 0.21, 0.004, 0.2], runs)
    assert outcome.status == "failed" and outcome.message.startswith(
        "Of your 6 samples, 3 took longer than the call can explain; the furthest over, "
        "sample 4, took 210.00 ms")


def test_a_sample_is_credited_the_waits_for_a_cpu_measured_inside_it() -> None:
    runs = [0.004, 0.0041, 0.0045]
    samples = [0.004, 0.23, 0.0042, 0.0041, 0.0043, 0.0044]  # one 230 ms sample
    # The margins' bound: 2 x (8.2 + 1.6 + 20 ms) + 100 ms = 159.6 ms.
    assert _duration(samples, runs).status == "failed"
    # A thread of the call waited 0.22 s for a CPU during the run: that is load.
    waited = _duration(samples, runs, waits=[(0.0, 1e9, 0.22)])
    assert waited.status == "passed", waited.message
    # A shorter wait covers only its own length: the rest of the sample is work.
    assert _duration(samples, runs, waits=[(0.0, 1e9, 0.05)]).status == "failed"
    # These samples match no interval of the trace (no window to look in): a sample is
    # credited the longest single period's wait, not the run's waits summed.
    split = [(0.0, 1.0, 0.11), (1.0, 1e9, 0.11)]
    assert _duration(samples, runs, waits=split).status == "failed"
    # The grader met load in its own runs too: one slow run widens the bound.
    slow_run = _duration(samples, [0.004, 0.0041, 0.060])
    assert slow_run.status == "passed", slow_run.message


def test_no_credit_covers_the_reading_threads_own_work() -> None:
    """A thread computing was neither stalled nor waiting for a CPU: a sample is
    credited at most the part of it its reading thread did not spend on work of its own,
    whatever the process's threads waited meanwhile (exercise-1's flawed
    alternating_heavy_samples passed under load on credited waits)."""
    runs = [0.004, 0.0041, 0.0045]
    samples = [0.004, 0.9, 0.0042, 0.0041, 0.0043, 0.0044]  # one 900 ms sample
    everywhere: Lost = [(0.0, 1e9, 0.88)]  # a thread waited 880 ms around it
    idle = [0.0001] * 6
    # Its reading thread did nothing of its own: the waits are what made it long.
    passed = _duration(samples, runs, waits=everywhere, own_cpu_s=idle)
    assert passed.status == "passed", passed.message
    # Its reading thread computed for 460 ms inside: at most 440 ms of it was lost.
    heavy = [*idle[:1], 0.46, *idle[2:]]
    for stalls, waits in ((None, everywhere), (everywhere, MEASURED), (everywhere, None)):
        outcome = _duration(samples, runs, stalls=stalls, waits=waits, own_cpu_s=heavy)
        assert outcome.status == "failed", (stalls, waits)
        assert outcome.evidence.facts["sample"] == 2
    # A step of the CPU clock is not work: 5 ms of it inside a 10 ms sample that lost 8 ms
    # leaves the sample its credit on a fine clock too (5 ms is under the bound).
    short = [0.004, 0.038, 0.0042, 0.0041, 0.0043, 0.0044]
    lost: Lost = [(0.0, 1e9, 0.030)]
    assert _duration(short, runs, waits=lost, own_cpu_s=[0.0001, 0.005, *idle[2:]]
                     ).status == "passed"


def test_no_credit_covers_a_pause_the_reading_thread_blocked_in() -> None:
    """A pause of the learner's (``threading.Event().wait(1.0)``) is off a CPU and not
    waiting for one: the watch's late wake-ups during it, under load, are no time the
    sample lost (exercise-1's mutant ``event_wait_inside`` passed so in a CI run)."""
    runs = [0.004, 0.0041, 0.0045]
    samples = [0.004, 1.0, 0.0042, 0.0041, 0.0043, 0.0044]  # one 1 s sample
    late_all_along: Lost = [(0.0, 1e9, 0.95)]  # the watch woke late again and again
    idle = [0.0001] * 6
    # Blocked for 0.99 s of it outside every recorded operation: no credit covers that.
    paused = [0.0, 0.99, 0.0, 0.0, 0.0, 0.0]
    for stalls, waits in ((late_all_along, MEASURED), (late_all_along, None)):
        outcome = _duration(samples, runs, stalls=stalls, waits=waits, own_cpu_s=idle,
                            blocked_s=paused)
        assert outcome.status == "failed", (stalls, waits, outcome.message)
        assert outcome.evidence.facts["sample"] == 2
    # The same sample with its thread never blocked (it waited for a CPU, or a stall
    # the watch saw held it): the stall is what made it long.
    running = _duration(samples, runs, stalls=late_all_along, own_cpu_s=idle,
                        blocked_s=[0.0] * 6)
    assert running.status == "passed", running.message


def test_no_credit_covers_the_work_of_the_learners_other_threads() -> None:
    """The run queue measures the threads a learner's call starts too (asyncio's worker
    waiting for the output), so two of the learner's threads computing on a loaded
    machine keep each other waiting for a CPU: that wait is credited at most the part of
    the sample the learner's threads together did not spend on work of their own."""
    runs = [0.004, 0.0041, 0.0045]
    samples = [0.004, 0.9, 0.0042, 0.0041, 0.0043, 0.0044]  # one 900 ms sample
    everywhere: Lost = [(0.0, 1e9, 0.88)]  # a thread waited 880 ms around it
    idle = [0.0001] * 6
    # A helper thread that only waited (its CPU time a few us): the waits are the load.
    waited = _duration(samples, runs, waits=everywhere, own_cpu_s=idle,
                       threads_cpu_s=[0.00002] * 6)
    assert waited.status == "passed", waited.message
    # A helper thread that computed 460 ms inside it while the reading thread waited.
    helper = _duration(samples, runs, waits=everywhere, own_cpu_s=idle,
                       threads_cpu_s=[0.0, 0.46, 0.0, 0.0, 0.0, 0.0])
    assert helper.status == "failed", helper.message
    assert helper.evidence.facts["sample"] == 2


def test_the_graders_runs_are_credited_what_they_lost_down_to_the_fastest() -> None:
    lost: Lost = [(10.0, 10.2, 0.15)]  # 150 ms lost between 10.0 s and 10.2 s
    # The second run (10.0-10.16 s) lost 150 ms: its net 10 ms; the others lost none.
    assert net_runs([0.010, 0.160, 0.011], [9.0, 10.0, 11.0], ([], lost)) == \
        pytest.approx([0.010, 0.010, 0.011])
    # Never below the fastest run, however much a run lost.
    assert net_runs([0.010, 0.012], [9.0, 10.0], (lost,)) == pytest.approx([0.010, 0.010])
    # Without a start read per run, the runs as they are.
    assert net_runs([0.010, 0.160], [], (lost,)) == [0.010, 0.160]
    assert net_runs([0.010, 0.160], [9.0], (lost,)) == [0.010, 0.160]


def test_each_bound_nets_the_graders_runs_of_what_it_credits_the_samples() -> None:
    """One of the grader's two runs of a 10 ms call was held up 150 ms: its spread would
    make the bound 2 x 85 + 4 x 75 + 20 = 490 ms (the margins' 1,080 ms), wide enough
    for 460 ms of work in a sample. A stall is credited to the samples under both bounds,
    so both are made from the run less it; a measured wait only under the tight bound, so
    only that one is: a sample judged by the margins may have lost time no counter holds,
    and the run the same load held up keeps room for it there."""
    runs = [0.010, 0.160]
    samples = [0.010, 0.47, 0.0102, 0.0101, 0.0103, 0.0104]
    held_up: Lost = [(100.0, 100.2, 0.15)]
    starts = [50.0, 100.0]
    assert _duration(samples, runs, stalls=held_up).status == "passed"  # no start reads
    stalled = _duration(samples, runs, stalls=held_up, starts=starts)
    assert stalled.status == "failed"
    assert stalled.evidence.facts["bound_ms"] == pytest.approx(
        100 + NOISE * (2 * 10 + 20))  # the margins' bound, from the runs' net 10 ms
    waited = _duration(samples, runs, waits=held_up, starts=starts)
    assert waited.status == "passed"  # the margins' bound from the runs as they were
    assert waited.evidence.facts["bound_ms"] == pytest.approx(
        100 + NOISE * (2 * 85 + 4 * 75 + 20))


def test_the_watch_stalls_and_measured_waits_are_one_loss_not_two() -> None:
    runs = [0.004, 0.0041, 0.0045]
    samples = [0.004, 0.35, 0.0042, 0.0041, 0.0043, 0.0044]  # one 350 ms sample
    # Measured waits: the tight bound (29.8 ms) plus the larger of the sample's stall
    # (50 ms) and its wait (300 ms): 329.8 ms, where their sum would allow 379.8 ms; the
    # margins' bound plus the stall is 209.6 ms.
    both = _duration(samples, runs, stalls=[(0.0, 1e9, 0.05)], waits=[(0.0, 1e9, 0.3)])
    assert both.status == "failed"
    assert _duration(samples, runs, stalls=[(0.0, 1e9, 0.05)],
                     waits=[(0.0, 1e9, 0.33)]).status == "passed"


def test_the_margins_hold_with_or_without_measured_waits() -> None:
    runs = [0.004, 0.0041, 0.0045]
    samples = [0.004, 0.23, 0.0042, 0.0041, 0.0043, 0.0044]  # one 230 ms sample
    # Where nothing measures the threads' waits, a late wake-up of the watch widens the
    # margins' bound in their place: 230 ms passes.
    busy = _duration(samples, runs, late=0.040, waits=None)
    assert busy.status == "passed", busy.message
    assert busy.evidence.facts["bound_ms"] == pytest.approx(100 + NOISE * (8.2 + 1.6 + 20 + 80))
    # Where they are measured (and none was in it), the margins keep their 100 ms and the
    # doubling for what no counter holds (a correct file's 120 ms sample at load 3 against
    # a 39.9 ms tight bound: steal, reclaim), not the wake-up term: 230 ms fails.
    measured = _duration(samples, runs, late=0.040, waits=MEASURED)
    assert measured.status == "failed"
    assert measured.evidence.facts["bound_ms"] == pytest.approx(100 + NOISE * (8.2 + 1.6 + 20))
    # Without a late wake-up, and no waits measured, the margins' bound is 161.6 ms:
    # 230 ms fails.
    quiet = _duration(samples, runs, late=0.0005, waits=None)
    assert quiet.status == "failed"
    assert quiet.evidence.facts["bound_ms"] == pytest.approx(100 + NOISE * (8.2 + 1.6 + 21))
    # A high one-minute load average is no excuse when the watch saw no wait: it lags.
    lagging = _duration(samples, runs, late=0.0005, load=6.0, waits=None)
    assert lagging.status == "failed"
    # Without the watch's measure, the load average stands in (6 runnable per CPU).
    unmeasured = _duration(samples, runs, late=None, load=6.0, waits=None)
    assert unmeasured.status == "passed", unmeasured.message


def test_a_stall_the_watch_saw_is_credited_and_no_more() -> None:
    runs = [0.004, 0.0041, 0.0045]
    samples = [0.004, 0.3, 0.0042, 0.0041, 0.0043, 0.0044]  # one 300 ms sample
    # The process could not run for 0.28 s: the sample's length is the stall's.
    stalled = _duration(samples, runs, stalls=[(0.0, 1e9, 0.28)])
    assert stalled.status == "passed", stalled.message
    # A shorter stall covers only its own length: the rest of the sample is work.
    short = _duration(samples, runs, stalls=[(0.0, 1e9, 0.05)])
    assert short.status == "failed"


def test_a_learner_cannot_buy_a_wide_bound_by_holding_the_interpreter() -> None:
    # Threads of the learner's holding the interpreter make every wake-up late; without
    # measured waits the bound takes at most LATENESS_CAP_S of it, and with them none.
    samples = [0.004, 1.0, 0.0042, 0.0041, 0.0043, 0.0044]
    for waits in (MEASURED, None):
        outcome = _duration(samples, [0.004, 0.0041, 0.0045], late=3.0, waits=waits)
        assert outcome.status == "failed"


def test_sample_duration_skips_without_a_reference_or_numbers() -> None:
    runs = [0.004, 0.0041, 0.0045]
    missing = _duration([0.004] * 6, [], missing="no recorded call of the timed callable")
    assert missing.status == "skipped" and "could not time the call" in missing.message
    assert _duration([0.004, -1.0, 0.004, 0.004, 0.004, 0.004], runs).status == "skipped"


def _cpu_interval(unexplained_ms: float, bound_ms: float = 0.35,
                  compiles: bool = False, clocks: int = 1) -> Any:
    """A stand-in for an interval with that much unexplained host CPU time, read from
    ``clocks`` threads' CPU clocks."""
    return SimpleNamespace(compiles=compiles, unexplained_cpu_ns=int(unexplained_ms * 1e6),
                           cpu_bound_ns=int(bound_ms * 1e6), cpu_clocks=clocks,
                           over_cpu_bound=unexplained_ms > bound_ms)


def test_interval_clean_has_no_half_of_the_list_to_hide_in() -> None:
    clean, heavy = _cpu_interval(0.1), _cpu_interval(40.0)
    # Exactly half of the samples carry 40 ms of host work: the list holds it.
    alternating = [clean, heavy] * 3
    assert cpu_work_interval(alternating) is heavy
    # One sample with 10 ms of work is over the list's 5 ms allowance on its own.
    one = [clean] * 5 + [_cpu_interval(10.0)]
    assert cpu_work_interval(one) is one[-1]
    # Load inflating one or two samples a little (1.4 ms, as measured) is not work.
    noisy = [clean] * 4 + [_cpu_interval(1.4), _cpu_interval(1.2)]
    assert cpu_work_interval(noisy) is None
    # The same small work in most samples is (the NumPy check inside the timer).
    small = [_cpu_interval(0.6)] * 4 + [clean] * 2
    assert cpu_work_interval(small) is small[0]
    # A compiling interval is the compilation checks' business.
    assert cpu_work_interval([_cpu_interval(90.0, compiles=True), clean]) is None
    assert CPU_EXCESS_ALLOWANCE_NS == 5_000_000


def test_one_interval_a_little_over_is_load_however_short_the_list() -> None:
    # A list whose samples all came from one interval (a loop timed whole, divided): one
    # interval is no majority; a free that unmaps a several-MB output (3.4 ms measured)
    # is load there as in a list of five. Over by more than the list's allowance, work.
    whole = _cpu_interval(3.4, bound_ms=1.4)
    assert cpu_work_interval([whole]) is None
    assert cpu_work_interval([whole, _cpu_interval(0.1)]) is None
    heavy = _cpu_interval(5 * 2.2, bound_ms=1.4)  # a NumPy check in each of five steps
    assert cpu_work_interval([heavy]) is heavy
    # Two judged intervals, both over: the same work in every sample.
    assert cpu_work_interval([_cpu_interval(2.2, bound_ms=1.0)] * 2) is not None


def test_interval_clean_allows_one_step_of_the_cpu_clock() -> None:
    clean, tick = _cpu_interval(0.0, bound_ms=1.0), _cpu_interval(10.0, bound_ms=1.0)
    ticked = [clean] * 2 + [tick] + [clean] * 2
    assert cpu_work_interval(ticked) is tick  # a fine clock: 10 ms is work
    assert cpu_work_interval(ticked, clock_step_ns=10_000_000) is None  # one gVisor tick
    # Over the bound by more than a step: every sample's 12 ms, or one sample's 40 ms.
    assert cpu_work_interval([_cpu_interval(12.0, bound_ms=1.0)] * 5, 10_000_000) is not None
    spike = [clean] * 4 + [_cpu_interval(40.0, bound_ms=1.0)]
    assert cpu_work_interval(spike, clock_step_ns=10_000_000) is spike[-1]


def test_interval_clean_allows_one_step_for_each_threads_clock() -> None:
    """A figure that adds a thread of the learner's to the reader's is read from two
    clocks, and a tick may land in each: 20.0 ms on the chip in a correct interval whose
    wait ran in asyncio's worker thread (exercise-1's asyncio_to_thread_wait)."""
    step = 10_000_000
    clean = _cpu_interval(0.0, bound_ms=1.0, clocks=2)
    two_ticks = _cpu_interval(20.0, bound_ms=1.0, clocks=2)
    assert cpu_work_interval([clean] * 5 + [two_ticks], clock_step_ns=step) is None
    # Read from the reader's clock alone, 20 ms is one tick and 10 ms of work.
    one_clock = _cpu_interval(20.0, bound_ms=1.0)
    assert cpu_work_interval([clean] * 5 + [one_clock], clock_step_ns=step) is one_clock
    # Work a step over the two clocks' allowance in every sample still fails.
    heavy = _cpu_interval(33.0, bound_ms=1.0, clocks=2)
    assert cpu_work_interval([heavy] * 5, clock_step_ns=step) is heavy


def _blocked_interval(blocked_ms: float | None, compiles: bool = False) -> Any:
    """A stand-in for an interval whose timing thread was blocked that long outside every
    recorded operation (``None``: no blocked stamps, as under gVisor)."""
    return SimpleNamespace(compiles=compiles, unrecorded_blocked_ns=None
                           if blocked_ms is None else int(blocked_ms * 1e6))


def test_unrecorded_blocking_is_judged_by_the_cpu_bounds_list_rule() -> None:
    clean = _blocked_interval(0.04)
    # A 5 ms pause in every sample (the corpus's `event_wait_every_sample`).
    every = [_blocked_interval(5.06)] * 6
    assert blocking_interval(every) is every[0]
    # In every other sample: half the list, no majority, but 12 ms over the bounds.
    alternating = [clean, _blocked_interval(5.06)] * 3
    assert blocking_interval(alternating) is alternating[1]
    # One 1 s pause (`event_wait_inside`) is far over the list's allowance alone.
    once = [clean] * 5 + [_blocked_interval(1000.0)]
    assert blocking_interval(once) is once[-1]
    # One interval a little over (a page fault's disk read, a lock) is no pause.
    assert blocking_interval([clean] * 5 + [_blocked_interval(1.24)]) is None
    # Compiling intervals, and intervals without stamps, are not judged.
    assert blocking_interval([_blocked_interval(90.0, compiles=True), clean]) is None
    assert blocking_interval([_blocked_interval(None)] * 6) is None
    assert UNRECORDED_BLOCK_BOUND_NS == 1_000_000


def _read(value: float) -> Any:
    return SimpleNamespace(clock="perf_counter", value=value)


def _paused(blocked_ms: float, start: float) -> Any:
    """An interval read from ``start`` to ``start + 0.02`` (perf_counter seconds) whose
    timing thread was blocked ``blocked_ms`` outside every recorded operation."""
    return SimpleNamespace(compiles=False, unrecorded_blocked_ns=int(blocked_ms * 1e6),
                           start=_read(start), stop=_read(start + 0.02))


def test_blocking_on_the_grader_watchs_hold_of_the_interpreter_is_credited() -> None:
    # A correct readback beside eight CPU hogs: one interval blocked 9.8 ms while the
    # stall watch, preempted, held the interpreter lock for 9.9 ms inside it.
    clean = [_paused(0.04, 10.0 + k) for k in range(4)]
    stalled = _paused(9.8, 20.0)
    listed = [*clean, stalled]
    held = InterpreterHolds([(20.005, 20.0149, 0.0099)])
    assert held.blocked_ns(stalled) == 0
    assert blocking_interval(listed) is stalled  # judged alone: a pause
    assert blocking_interval(listed, held=held) is None
    # A hold credits only its overlap with an interval, at most its own length: a 5 ms
    # pause in every sample stays a pause beside a hold in one of them.
    every = [_paused(5.06, 10.0 + k) for k in range(5)]
    assert held.blocked_ns(every[0]) == 5_060_000
    assert blocking_interval(every, held=InterpreterHolds([(10.0, 10.0011, 0.0011)])) \
        is every[0]
    half = InterpreterHolds([(20.0, 20.1, 0.004)])
    assert half.blocked_ns(_paused(9.8, 20.0)) == 5_800_000


def test_one_interval_blocked_for_a_scheduler_wait_is_load() -> None:
    # A lock holder preempted by the machine's load blocks a correct interval once in a
    # list for as long as it waits for a CPU (6.9-9.8 ms in CI runs on two cores); the
    # stall watch's latest wake-up measures that wait in the same run.
    clean = _blocked_interval(0.04)
    once = [clean] * 5 + [_blocked_interval(9.8)]
    assert blocking_interval(once) is once[-1]  # over the fixed 5 ms, alone
    loaded = blocking_allowance_ns(0.012)
    assert loaded == CPU_EXCESS_ALLOWANCE_NS + 12_000_000
    assert blocking_interval(once, allowance_ns=loaded) is None
    # Idle, nothing is added; the lateness counts only up to its cap.
    assert blocking_allowance_ns(None) == blocking_allowance_ns(0.0) == CPU_EXCESS_ALLOWANCE_NS
    assert blocking_allowance_ns(5.0) == CPU_EXCESS_ALLOWANCE_NS + int(LATENESS_CAP_S * 1e9)
    # Load never lets a pause in every sample pass, nor a 1 s pause in one.
    huge = blocking_allowance_ns(5.0)
    every = [_blocked_interval(5.06)] * 6
    assert blocking_interval(every, allowance_ns=huge) is every[0]
    second = [clean] * 5 + [_blocked_interval(1000.0)]
    assert blocking_interval(second, allowance_ns=huge) is second[-1]


def _both(unexplained_ms: float, blocked_ms: float) -> Any:
    """A stand-in interval measured on both: unexplained host CPU and unrecorded blocking."""
    return SimpleNamespace(compiles=False, unexplained_cpu_ns=int(unexplained_ms * 1e6),
                           cpu_bound_ns=350_000, cpu_clocks=1,
                           unrecorded_blocked_ns=int(blocked_ms * 1e6))


def test_the_measure_over_its_bound_in_more_samples_names_the_flaw() -> None:
    # exercise-3's `select_every_sample` under load: a 5 ms pause in every sample, and
    # load's cold caches inflating two samples' CPU time past the list's 5 ms allowance.
    # Both measures fail the list; the message must name the pause in every grade.
    paused = [_both(4.0, 5.0), _both(3.5, 5.1), *[_both(0.1, 5.0)] * 4]
    assert cpu_work_interval(paused) is not None and blocking_interval(paused) is not None
    assert measured_flaw(paused) == ("blocked", paused[0])
    # Over in every sample on both, as work handed to a thread and joined is (the
    # reading thread blocks while the thread works): the work names it.
    joined = [_both(8.0, 8.2)] * 6
    assert measured_flaw(joined) == ("cpu", joined[0])
    # A NumPy check in every sample, with one interval blocked long by load: host CPU.
    worked = [_both(2.0, 12.0), *[_both(2.0, 0.1)] * 5]
    assert measured_flaw(worked) == ("cpu", worked[0])
    # Over on one measure only, or on neither.
    assert measured_flaw([_both(2.0, 0.1)] * 6)[0] == "cpu"  # type: ignore[index]
    assert measured_flaw([_both(0.1, 5.0)] * 6)[0] == "blocked"  # type: ignore[index]
    assert measured_flaw([_both(0.1, 0.1)] * 6) is None


def test_samples_in_another_unit_are_judged_in_seconds() -> None:
    sim, measured = _loop("method_wait")
    runs = sorted(measured)[:3]
    frames = {"main": CallFrame(type="call", id="main", ok=True, events=sim.events(),
                                reference=[ReferenceTiming(samples=[1], seconds=runs,
                                                           runnable_per_cpu=0.5)],
                                latest_wake_s=0.0)}
    in_ms = [v * 1e3 for v in measured]  # sample-count's flaw, not a longer sample
    ctx = context("exercise-1", [], frames=frames, values={"main": [None, in_ms]})
    assert _check("exercise-1", "sample-duration", ctx).status == "passed"
    assert _check("exercise-1", "sample-count", ctx).status == "failed"
