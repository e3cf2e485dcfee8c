"""`samples-measured` and the shared sample matcher, on hand-written traces (no child).

A returned sample must be ``stop - start`` of two clock reads the learner made in that call,
matched by value (one unit per list, float noise and rounding to the microsecond allowed),
one distinct read pair per sample; the interval-judging checks then judge those pairs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import builders
import numpy as np
import pytest
from builders import F, validated

from syncgrade.analysis import analyse
from syncgrade.rubric import checks as c
from syncgrade.rubric import intervals as iv
from syncgrade.rubric.base import Context, Outcome, Skip
from syncgrade.rubric.checks_intervals import rounding_step

WORK_S = 0.004  # about each timed call's real duration in these traces


class Trace:
    """Builds one call's events the way the child records them (one seq counter)."""

    def __init__(self) -> None:
        self.raw: list[dict[str, Any]] = []
        self.clock = 100.0
        self.token = 10
        # Real clock values jitter; a regular lattice of values would make unrelated read
        # pairs coincide (two 5 ms steps equal one 10 ms step).
        self.jitter = np.random.default_rng(2026)

    def add(self, kind: str, **fields: Any) -> int:
        seq = len(self.raw) + 1
        self.raw.append({"seq": seq, "kind": kind, **fields})
        return seq

    def read(self, ns: bool = False, line: int = 1) -> tuple[int, float | int]:
        value: float | int = int(self.clock * 1e9) if ns else self.clock
        seq = self.add("timer", clock="perf_counter_ns" if ns else "perf_counter",
                       value=value, site=[F, line])
        return seq, value

    def timed_call(self, wait: bool = True) -> int:
        """A call of the jitted function, its return and (optionally) a wait on its
        output; advances the clock by about the work's duration when waited, else 20 µs."""
        call = self.add("call", name="fn", site=[F, 2], inputs=[1, 2], numpy_args=0, fn=1)
        self.token += 1
        self.add("return", call=call, outputs=[self.token])
        if wait:
            self.add("wait", how="block_until_ready", arrays=[self.token], site=[F, 3])
        self.clock += (WORK_S if wait else 20e-6) * self.jitter.uniform(0.8, 1.2)
        return call

    def ready(self, read_seq: int, call: int, ready: bool) -> None:
        self.add("ready", read=read_seq, call=call, ready=ready)

    def pair(self, start: int, stop: int) -> None:
        self.add("pair", start=start, stop=stop)

    def events(self) -> list[Any]:
        return validated(self.raw)


def loop(repeats: int = 6, wait: bool = True, subtract: bool = True, ns: bool = False,
         gap: float = 0.001) -> tuple[Trace, list[float | int]]:
    """``repeats`` iterations of start / call / (wait) / stop; returns the trace and the
    raw differences stop - start (ints for the ns clock)."""
    t = Trace()
    t.read()  # an unrelated read first: pairing reads in order would be off by one
    t.clock += gap * t.jitter.uniform(0.5, 1.5)
    diffs: list[float | int] = []
    for _ in range(repeats):
        start, v0 = t.read(ns)
        call = t.timed_call(wait)
        stop, v1 = t.read(ns)
        t.ready(stop, call, ready=wait)
        if subtract:
            t.pair(start, stop)
        diffs.append(v1 - v0)
        t.clock += gap * t.jitter.uniform(0.5, 1.5)
    return t, diffs


def context(events: list[Any], value: Any, exercise: str = "exercise-1") -> Context:
    return builders.context(exercise, events, decoded=value)  # the decoded return value


def measured(events: list[Any], samples: list[Any]) -> Any:
    return c.samples_measured(context(events, [None, samples]), "main", (1,))


def judged(check: Any, events: list[Any], samples: list[Any]) -> Any:
    return check(context(events, [None, samples]), "main", (1,))


# --------------------------------------------------------------------------- correct styles


def test_perf_counter_samples_pass() -> None:
    t, diffs = loop()
    outcome = measured(t.events(), [float(d) for d in diffs])
    assert outcome.status == "passed", outcome.message


def test_perf_counter_ns_divided_by_1e9_passes() -> None:
    t, diffs = loop(ns=True)
    assert all(isinstance(d, int) for d in diffs)
    assert measured(t.events(), [d / 1e9 for d in diffs]).status == "passed"


def test_rounded_samples_pass_in_any_unit_and_the_unit_is_sample_counts_business() -> None:
    t, diffs = loop()
    events = t.events()
    assert measured(events, [round(d, 6) for d in diffs]).status == "passed"
    ms = [round(d * 1e3, 3) for d in diffs]
    assert measured(events, ms).status == "passed"
    unit = c.sample_count(context(events, [None, ms]), "main", (1,), count=6)
    assert unit.status == "failed" and "milliseconds" in unit.message


def test_samples_rounded_coarser_than_a_microsecond_fail_and_are_named_rounded() -> None:
    t, diffs = loop(gap=0.01)
    events = t.events()
    for samples, words in (([round(d, 4) for d in diffs], "0.1 ms"),
                           ([round(d * 1e3, 2) for d in diffs], "10 µs")):
        outcome = measured(events, samples)
        assert outcome.status == "failed"
        assert f"samples look rounded to {words}" in outcome.message, outcome.message
        assert "unrounded" in (outcome.hint or "")
    made_up = measured(events, [0.5] * len(diffs))  # a round figure, not a rounding
    assert made_up.status == "failed" and "rounded" not in made_up.message


def test_rounding_step_is_the_finest_step_every_sample_fits() -> None:
    durations = [0.012345678, 0.013456789, 0.0151]
    assert rounding_step([0.0123, 0.0135], durations) == pytest.approx(1e-4)
    assert rounding_step([12.3, 13.5], durations) == pytest.approx(1e-4)  # in ms
    assert rounding_step([0.0123, 0.0135, 0.0175], durations) is None  # one fits none
    assert rounding_step([0.01, 0.02], [0.0123, 0.0185]) is None  # under five steps
    assert rounding_step([1e308, 0.0123], durations) is None  # no quotient overflows


def test_float_subtraction_with_a_wait_is_matched_to_its_real_interval() -> None:
    # float(t1) - float(t0) hides the subtraction: no pair records. Pairing reads in order
    # would pair each stop with the next start; the values name the real pairs.
    t, diffs = loop(subtract=False)
    events = t.events()
    assert all(i.inferred for i in analyse(events).intervals)
    samples = [float(d) for d in diffs]
    assert measured(events, samples).status == "passed"
    assert judged(c.sync_before_stop, events, samples).status == "passed"
    assert judged(c.times_the_call, events, samples).status == "passed"


def test_float_subtraction_without_a_wait_is_measured_but_fails_sync() -> None:
    t, diffs = loop(subtract=False, wait=False)
    events = t.events()
    samples = [float(d) for d in diffs]
    assert measured(events, samples).status == "passed"
    outcome = judged(c.sync_before_stop, events, samples)
    assert outcome.status == "failed" and "still being computed" in outcome.message


def test_np_diff_of_a_list_of_reads_passes() -> None:
    t = Trace()
    reads = [t.read()[1]]
    for _ in range(6):
        call = t.timed_call()
        seq, value = t.read()
        t.ready(seq, call, ready=True)
        reads.append(value)
    samples = np.diff(np.array(reads)).tolist()
    events = t.events()
    assert measured(events, samples).status == "passed"
    assert judged(c.times_the_call, events, samples).status == "passed"
    assert judged(c.sync_before_stop, events, samples).status == "passed"


def test_timeit_repeat_samples_pass() -> None:
    # timeit's inner loop: `_t0 = _timer(); stmt; _t1 = _timer(); return _t1 - _t0`.
    t, diffs = loop()
    for event in t.raw:
        if event["kind"] == "timer":
            event["site"] = ["<timeit-src>", 6]
    assert measured(t.events(), [float(d) for d in diffs]).status == "passed"


def test_a_dropped_sample_is_still_measured() -> None:
    t, diffs = loop()
    assert measured(t.events(), [float(d) for d in diffs[1:]]).status == "passed"


# --------------------------------------------------------------------------- cheats


def test_a_made_up_list_fails() -> None:
    t, _ = loop()
    outcome = measured(t.events(), [0.05, 0.051, 0.049, 0.05, 0.052, 0.05])
    assert outcome.status == "failed"
    assert outcome.message.startswith("Samples 1, 2, 3 and 4 (and 2 more) of 6 are not")
    assert "0.05" not in outcome.message + outcome.hint


def test_measured_intervals_thrown_away_and_constants_returned_fail() -> None:
    t, _ = loop()  # correct, waited intervals were measured...
    events = t.events()
    constants = [0.0125, 0.0125, 0.013, 0.0125, 0.012, 0.0125]  # ...and these returned
    assert measured(events, constants).status == "failed"
    # The other checks still judge every recorded interval, which are correct here.
    assert judged(c.sync_before_stop, events, constants).status == "passed"


def test_one_scaled_sample_fails_and_is_named() -> None:
    t, diffs = loop()
    samples = [float(d) for d in diffs]
    samples[2] *= 1.5
    outcome = measured(t.events(), samples)
    assert outcome.status == "failed"
    assert outcome.message == (
        "Sample 3 of 6 is not the difference of two clock readings your code took: each "
        "sample must be stop - start of one timed call, unchanged.")


def test_padded_samples_fail() -> None:
    t, diffs = loop()
    samples = [float(d) + (0.01 if i % 2 else 0.0) for i, d in enumerate(diffs)]
    outcome = measured(t.events(), samples)
    assert outcome.status == "failed" and outcome.message.startswith("Samples 2, 4 and 6 of 6")


def test_one_measured_sample_copied_fails() -> None:
    t, diffs = loop()
    outcome = measured(t.events(), [float(diffs[0])] * 6)  # each sample needs its own pair
    assert outcome.status == "failed" and "Samples 2, 3, 4 and 5 (and 1 more)" in outcome.message


def test_unmatched_samples_leave_every_interval_judged() -> None:
    t, _ = loop()
    events = t.events()
    assert iv.judged_intervals(context(events, [None, [0.3] * 6]), "main", (1,)) == list(
        analyse(events).intervals)


def test_samples_with_no_clock_read_at_all_say_so() -> None:
    t = Trace()
    t.timed_call()
    outcome = measured(t.events(), [0.01] * 6)
    assert outcome.status == "failed"
    assert "(the grader saw no clock read in this call)" in outcome.message


def _retimed(t: Trace, clock: str) -> Trace:
    """The same trace, every read from ``clock`` (values unchanged)."""
    for event in t.raw:
        if event["kind"] == "timer":
            event["clock"] = clock
    return t


@pytest.mark.parametrize(("clock", "label", "whose"), [
    ("process_time", "`time.process_time`", "this process"),
    ("thread_time", "`time.thread_time`", "this thread"),
    ("clock_gettime(CLOCK_PROCESS_CPUTIME_ID)",
     "`time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID)`", "this process"),
])
def test_samples_of_a_cpu_time_clock_fail_and_name_it(clock: str, label: str,
                                                      whose: str) -> None:
    t, diffs = loop()
    outcome = measured(_retimed(t, clock).events(), [float(d) for d in diffs])
    assert outcome.status == "failed"
    assert outcome.message == (
        f"Your samples come from {label}, which counts CPU time of {whose}, not the time "
        "spent waiting for the device: use `time.perf_counter()`.")
    assert outcome.evidence is not None and outcome.evidence.facts["clock"] == clock


def test_only_cpu_time_reads_and_unmatched_samples_name_the_cpu_clock() -> None:
    t, _ = loop()
    outcome = measured(_retimed(t, "process_time_ns").events(), [0.01] * 6)
    assert outcome.status == "failed" and "`time.process_time_ns`" in outcome.message
    assert "no clock" not in outcome.message


def test_wall_samples_pass_beside_cpu_time_reads() -> None:
    # A learner may read a CPU-time clock too (to report CPU use): the samples that are
    # perf_counter differences are measured, and no CPU read pairs with a wall read.
    t, diffs = loop()
    t.add("timer", clock="process_time", value=float(t.clock), site=[F, 9])
    t.add("timer", clock="process_time", value=float(t.clock) + 0.25, site=[F, 9])
    assert measured(t.events(), [float(d) for d in diffs]).status == "passed"


@pytest.mark.parametrize("clock", ["datetime.now", "clock_gettime_ns(CLOCK_MONOTONIC)"])
def test_integer_nanosecond_clocks_match_their_samples(clock: str) -> None:
    # datetime readings are recorded as the system clock's nanoseconds, in whole
    # microseconds; the learner's ``(t1 - t0).total_seconds()`` is their difference.
    t, _ = loop(ns=True)
    for event in t.raw:
        if event["kind"] == "timer":
            event["value"] -= event["value"] % 1000 if clock.startswith("datetime") else 0
    t = _retimed(t, clock)
    reads = [e for e in t.raw if e["kind"] == "timer"]
    samples = [(b["value"] - a["value"]) // 1000 / 1e6 if clock.startswith("datetime")
               else (b["value"] - a["value"]) / 1e9
               for a, b in zip(reads[1::2], reads[2::2], strict=True)]
    assert measured(t.events(), samples).status == "passed"


def test_a_warm_list_may_not_reuse_first_call_intervals() -> None:
    t, diffs = loop(repeats=3)
    first = [float(d) for d in diffs]
    report = {"first_call_s": first, "warm_s": first}
    ctx = context(t.events(), report, "exercise-7")
    assert c.samples_measured(ctx, "main", ("first_call_s",)).status == "passed"
    warm = c.samples_measured(ctx, "main", ("warm_s",), exclusive_of=(("first_call_s",),))
    assert warm.status == "failed"


def test_non_numbers_and_non_positive_samples_are_sample_counts_failure() -> None:
    t, _ = loop()
    events = t.events()
    for samples in ([-0.1] * 6, [float("nan")] * 6, [], ["0.1"] * 6):
        with pytest.raises(Skip):
            measured(events, samples)


# --------------------------------------------------------------------------- cost


def all_pairs_trace(reads: int) -> tuple[list[Any], list[float]]:
    """``reads`` waited calls, each followed by a read, then every pair subtracted."""
    t = Trace()
    seqs, values = [], []
    for _ in range(reads):
        call = t.timed_call()
        seq, value = t.read()
        t.ready(seq, call, ready=True)
        seqs.append(seq)
        values.append(value)
    for i in range(reads):
        for j in range(i + 1, reads):
            t.pair(seqs[i], seqs[j])
    samples = [values[i + 1] - values[i] for i in range(0, 12, 2)]
    return t.events(), samples


def test_all_pairs_of_250_reads_analyse_and_grade_in_well_under_a_second() -> None:
    events, samples = all_pairs_trace(250)
    started = time.process_time()  # CPU time: pure work in this process, load-proof
    analysis = analyse(events)
    analysed = time.process_time() - started
    ctx = context(events, [None, samples])
    checks: list[Callable[..., Outcome]] = [
        c.samples_measured, c.times_the_call, c.sync_before_stop, c.placement_excluded]
    outcomes = [check(ctx, "main", (1,)) for check in checks]
    unmatched = context(events, [None, [0.3021] * 6])  # every one of the 31k intervals judged
    outcomes += [check(unmatched, "main", (1,)) for check in checks]
    total = time.process_time() - started
    print(f"250 reads, {len(analysis.intervals)} intervals: analyse {analysed:.3f} s, "
          f"with 8 checks {total:.3f} s")
    assert len(analysis.intervals) == 250 * 249 // 2
    assert [o.status for o in outcomes[:4]] == ["passed"] * 4
    assert outcomes[4].status == "failed" and outcomes[5].status == "failed"
    # Measured ~0.15 s on a 2-core box (the old scan took 44 s): 5 CPU s cannot flake.
    assert total < 5.0
