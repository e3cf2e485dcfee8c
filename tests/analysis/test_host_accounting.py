"""The interval's own host work (issue 25): unexplained CPU time and host activity, from
hand-made events (CPU stamps in ns; no clock or machine involved)."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from syncgrade.analysis import (
    CALL_ALLOWANCE_NS,
    SWITCH_ALLOWANCE_NS,
    UNEXPLAINED_CPU_BOUND_NS,
    UNRECORDED_BLOCK_BOUND_NS,
    analyse,
)
from syncgrade.trace import Event

EVENTS = TypeAdapter(list[Event])
SITE = ["submission.py", 10]


def _interval(*inside: dict[str, Any], stop_cpu: int = 5_000_000) -> Any:
    events = [{"seq": 1, "kind": "timer", "clock": "perf_counter", "value": 1.0,
               "site": SITE, "cpu": 1_000_000},
              *inside,
              {"seq": 50, "kind": "timer", "clock": "perf_counter", "value": 2.0,
               "site": SITE, "cpu": stop_cpu},
              {"seq": 51, "kind": "pair", "start": 1, "stop": 50}]
    [interval] = analyse(EVENTS.validate_python(events)).intervals
    return interval


CALL = [{"seq": 2, "kind": "call", "name": "f", "site": SITE, "inputs": [1], "cpu": 1_100_000},
        {"seq": 3, "kind": "return", "call": 2, "outputs": [5], "cpu": 2_000_000}]
WAIT = {"seq": 4, "kind": "wait", "how": "block_until_ready", "arrays": [5], "site": SITE,
        "cpu": 2_050_000, "cpu_end": 4_950_000}


def test_a_call_and_its_wait_explain_their_cpu_time() -> None:
    interval = _interval(*CALL, WAIT)
    # 4 ms between the reads; the call (0.9 ms) and the wait (2.9 ms) explain 3.8 ms.
    assert interval.unexplained_cpu_ns == 200_000
    assert interval.host_activity() == []


def test_host_work_after_the_wait_is_unexplained_and_located() -> None:
    wait = {**WAIT, "cpu_end": 2_100_000}  # the wait ended early; 2.9 ms of host work
    interval = _interval(*CALL, wait)
    assert interval.unexplained_cpu_ns == 4_000_000 - 900_000 - 50_000
    assert interval.unexplained_cpu_ns > UNEXPLAINED_CPU_BOUND_NS
    before, after, free = interval.unexplained_gap()
    assert (before.kind, after.kind) == ("wait", "timer") and free == 2_900_000


def test_a_gc_pause_is_explained_and_other_threads_are_not_counted() -> None:
    wait = {**WAIT, "cpu_end": 2_100_000}
    gc = {"seq": 60, "kind": "gc", "cpu": 2_200_000, "cpu_end": 4_900_000}
    other = {"seq": 61, "kind": "gc", "cpu": 1_000_000, "cpu_end": 5_000_000, "th": 1}
    assert _interval(*CALL, wait, gc, other).unexplained_cpu_ns == 350_000


def test_prints_sleeps_and_eager_work_on_other_arrays_are_host_activity() -> None:
    write = {"seq": 6, "kind": "write", "stream": "stdout", "site": SITE}
    sleep = {"seq": 7, "kind": "sleep", "seconds": 0.01, "site": SITE}
    on_output = {"seq": 8, "kind": "eager", "fun": "sum", "arrays": [5, 9], "inputs": 1,
                 "site": SITE}
    on_derived = {"seq": 9, "kind": "eager", "fun": "getitem", "arrays": [9, 10],
                  "inputs": 1, "site": SITE}
    on_inputs = {"seq": 10, "kind": "eager", "fun": "tanh", "arrays": [1, 11], "inputs": 1,
                 "site": SITE}
    grader = {"seq": 11, "kind": "write", "stream": "stderr", "site": None}
    found = _interval(*CALL, WAIT, write, sleep, on_output, on_derived, on_inputs,
                      grader).host_activity()
    assert [e.seq for e in found] == [6, 7, 10]


def test_no_claim_without_stamps_or_across_threads() -> None:
    assert _interval(*CALL).unexplained_cpu_ns is not None
    events = [{"seq": 1, "kind": "timer", "clock": "perf_counter", "value": 1.0,
               "cpu": 10, "th": 1},
              {"seq": 2, "kind": "timer", "clock": "perf_counter", "value": 2.0, "cpu": 20},
              {"seq": 3, "kind": "pair", "start": 1, "stop": 2}]
    [interval] = analyse(EVENTS.validate_python(events)).intervals
    assert interval.unexplained_cpu_ns is None


def _switching(start_vcs: int | None, stop_vcs: int | None, *, stop_th: int = 0) -> Any:
    """An interval holding a call and 3.05 ms of unexplained CPU time (an early wait),
    its reads carrying the reading thread's voluntary switch counts."""
    wait = {**WAIT, "cpu_end": 2_100_000}
    events = [{"seq": 1, "kind": "timer", "clock": "perf_counter", "value": 1.0,
               "site": SITE, "cpu": 1_000_000, "vcs": start_vcs},
              *CALL, wait,
              {"seq": 50, "kind": "timer", "clock": "perf_counter", "value": 2.0,
               "site": SITE, "cpu": 5_000_000, "vcs": stop_vcs, "th": stop_th},
              {"seq": 51, "kind": "pair", "start": 1, "stop": 50}]
    [interval] = analyse(EVENTS.validate_python(events)).intervals
    return interval


def test_voluntary_switches_raise_the_cpu_bound_by_their_allowance() -> None:
    # Switching (waiting for the GIL beside a busy thread of the learner's) costs CPU time
    # that is not the learner's work: each voluntary switch raises the bound.
    assert SWITCH_ALLOWANCE_NS * 150 > 3_050_000 - UNEXPLAINED_CPU_BOUND_NS
    many = _switching(10, 160)
    assert many.unexplained_cpu_ns == 3_050_000
    assert many.voluntary_switches == 150 and not many.over_cpu_bound
    # The same CPU time with a few switches is the learner's own host work.
    few = _switching(10, 12)
    assert few.cpu_bound_ns == UNEXPLAINED_CPU_BOUND_NS + 2 * SWITCH_ALLOWANCE_NS
    assert few.over_cpu_bound
    # No count, a count going backwards, or reads on two threads: no allowance.
    for interval in (_switching(None, 160), _switching(160, 10)):
        assert interval.voluntary_switches == 0 and interval.over_cpu_bound
    assert _switching(10, 160, stop_th=1).voluntary_switches == 0


def _loop_of_calls(calls: int, glue_ns: int, *, th: int = 0) -> Any:
    """An interval around a loop of ``calls`` calls and waits (``th``: the calls' and
    waits' thread; the reads are on thread 0), each call 0.2 ms and each wait 0.3 ms,
    with ``glue_ns`` of unexplained CPU time after each wait."""
    events: list[dict[str, Any]] = []
    cpu, seq = 1_000_000, 2
    for _ in range(calls):
        events += [{"seq": seq, "kind": "call", "name": "f", "site": SITE, "inputs": [1],
                    "cpu": cpu, "th": th},
                   {"seq": seq + 1, "kind": "return", "call": seq, "outputs": [seq + 100],
                    "cpu": cpu + 200_000, "th": th},
                   {"seq": seq + 2, "kind": "wait", "how": "block_until_ready",
                    "arrays": [seq + 100], "site": SITE, "cpu": cpu + 200_000,
                    "cpu_end": cpu + 500_000, "th": th}]
        cpu, seq = cpu + 500_000 + glue_ns, seq + 3
    return _interval(*events, stop_cpu=cpu if th == 0 else 1_000_000 + calls * glue_ns)


def test_each_further_call_of_the_reader_raises_the_cpu_bound() -> None:
    # A loop of five calls and waits timed as one interval: each call's hooks leave glue
    # (measured 50-80 µs a call), so the bound grows by an allowance per further call.
    loop = _loop_of_calls(5, 250_000)  # 1.25 ms of glue in all: the flipped verdict's 1.2
    assert loop.reader_calls == 5
    assert loop.unexplained_cpu_ns == 1_250_000
    assert loop.cpu_bound_ns == UNEXPLAINED_CPU_BOUND_NS + 4 * CALL_ALLOWANCE_NS
    assert not loop.over_cpu_bound
    # The same unexplained time beside one call is the learner's own host work.
    one = _loop_of_calls(1, 1_250_000)
    assert one.cpu_bound_ns == UNEXPLAINED_CPU_BOUND_NS and one.over_cpu_bound
    # Host work in every step of the loop (a NumPy check: 2.2 ms and more, the smallest
    # lesson's mistake) is still over the grown bound, with room to spare.
    assert _loop_of_calls(5, 2_200_000).unexplained_cpu_ns > 2 * loop.cpu_bound_ns
    assert _loop_of_calls(5, 2_200_000).over_cpu_bound


def test_calls_on_another_thread_raise_no_bound() -> None:
    # Their hooks' glue is another thread's CPU time, not the reader's.
    elsewhere = _loop_of_calls(5, 300_000, th=1)
    assert elsewhere.reader_calls == 0
    assert elsewhere.cpu_bound_ns == UNEXPLAINED_CPU_BOUND_NS
    assert elsewhere.over_cpu_bound  # 1.5 ms on the reader, none of it explained


# --------------------------------------------------------------------------- own spans (issue 33)


def test_a_list_conversion_is_credited_its_own_span_not_the_work_after_it() -> None:
    # `np.asarray([0.0])` after the wait, then 2.5 ms of NumPy work before the stop read:
    # the conversion (20 µs) and the freeing of its list (at most as long again) are
    # explained, the work after them is not.
    wait = {**WAIT, "cpu_end": 2_100_000}
    convert = {"seq": 5, "kind": "wait", "how": "numpy.asarray", "arrays": [], "site": SITE,
               "cpu0": 2_200_000, "cpu": 2_220_000}
    interval = _interval(*CALL, wait, convert)
    assert interval.unexplained_cpu_ns == 4_000_000 - 900_000 - 50_000 - 40_000
    assert interval.over_cpu_bound
    # A long readback of a list (`np.array(out.tolist())`) frees its list after it.
    readback = {**convert, "cpu0": 2_100_000, "cpu": 3_600_000}
    assert _interval(*CALL, wait, readback).unexplained_cpu_ns == 150_000


def test_a_host_callback_inside_the_call_is_not_explained_by_the_call() -> None:
    # XLA ran the program's host callback inline, inside the call's span: its 0.8 ms
    # is host Python, not device work.
    callback = {"seq": 2, "kind": "callback", "line": 7, "cpu0": 1_150_000,
                "cpu": 1_950_000}
    call = [{**CALL[0], "seq": 3}, {**CALL[1], "seq": 4, "call": 3}]
    wait = {**WAIT, "seq": 5}
    interval = _interval(callback, *call, wait)
    assert interval.unexplained_cpu_ns == 200_000 + 800_000
    assert [c.line for c in interval.host_callbacks] == [7]
    # One on another thread (XLA's) takes nothing from this thread's accounting.
    other = {**callback, "th": 1}
    assert _interval(other, *call, wait).unexplained_cpu_ns == 200_000


def test_an_is_ready_poll_loop_is_credited_as_a_wait() -> None:
    # `while not out.is_ready(): pass`: the hook records the loop's first poll (cpu0)
    # and the poll that found the output ready (cpu).
    poll = {"seq": 4, "kind": "wait", "how": "is_ready", "arrays": [5], "site": SITE,
            "cpu0": 2_010_000, "cpu": 4_900_000}
    interval = _interval(*CALL, poll)
    assert interval.unexplained_cpu_ns == 4_000_000 - 900_000 - 2_890_000
    assert interval.waits_on_timed_output() == [interval.waits[0]]
    # A single poll that found it ready at once explains nothing more.
    once = {**poll, "cpu0": None}
    assert _interval(*CALL, once).unexplained_cpu_ns == 4_000_000 - 900_000


def test_the_gaps_of_a_poll_loop_are_no_part_of_its_wait() -> None:
    # `while not out.is_ready(): work()`: the hook records the gaps between polls that
    # were longer than a bare loop's; the loop body's 1.5 ms is the learner's.
    poll = {"seq": 4, "kind": "wait", "how": "is_ready", "arrays": [5], "site": SITE,
            "cpu0": 2_010_000, "cpu": 4_900_000,
            "holes": [[2_500_000, 3_000_000], [3_500_000, 4_500_000]]}
    interval = _interval(*CALL, poll)
    assert interval.unexplained_cpu_ns == 4_000_000 - 900_000 - 2_890_000 + 1_500_000
    assert interval.over_cpu_bound
    # A GC pause inside a gap is still the collector's.
    gc = {"seq": 60, "kind": "gc", "cpu": 3_600_000, "cpu_end": 4_500_000}
    assert _interval(*CALL, poll, gc).unexplained_cpu_ns == (
        4_000_000 - 900_000 - 2_890_000 + 500_000 + 100_000)


def test_a_short_sleep_inside_a_poll_loop_is_part_of_its_wait() -> None:
    # `while not out.is_ready(): time.sleep(t)`: each sleep was asked for while the
    # output still ran. Up to the blocking a sample may hold it is part of the wait; a
    # longer one, or any sleep outside the run (after it, or on another thread), is not.
    poll = {"seq": 6, "kind": "wait", "how": "is_ready", "arrays": [5], "site": SITE,
            "cpu0": 2_010_000, "cpu": 2_900_000}

    def sleep(seconds: float, cpu: int = 2_500_000, th: int = 0) -> dict[str, Any]:
        return {"seq": 4, "kind": "sleep", "seconds": seconds, "site": SITE, "cpu": cpu,
                "th": th}

    short = _interval(*CALL, sleep(0.0001), poll)
    assert short.poll_sleeps and short.host_activity() == []
    edge = _interval(*CALL, sleep(UNRECORDED_BLOCK_BOUND_NS / 1e9), poll)
    assert edge.host_activity() == []
    for outside in (sleep(0.02), sleep(0.0001, cpu=3_000_000), sleep(0.0001, th=1),
                    {**sleep(0.0001), "seconds": None}):
        interval = _interval(*CALL, outside, poll)
        assert [e.kind for e in interval.host_activity()] == ["sleep"], outside
    # A too-long sleep inside the run is still known to lie in it (the message says so).
    assert _interval(*CALL, sleep(0.02), poll).poll_run_sleeps == frozenset({4})
    # No poll run: a sleep is the learner's, however short.
    assert [e.kind for e in _interval(*CALL, sleep(0.0001)).host_activity()] == ["sleep"]


def _threaded(start_others: int | None, stop_others: int | None,
              stop_th: int = 0, *elsewhere: dict[str, Any]) -> Any:
    start = {"seq": 1, "kind": "timer", "clock": "perf_counter", "value": 1.0,
             "site": SITE, "cpu": 1_000_000}
    stop = {"seq": 50, "kind": "timer", "clock": "perf_counter", "value": 2.0,
            "site": SITE, "cpu": 5_000_000, "th": stop_th}
    if start_others is not None:
        start["others"] = start_others
    if stop_others is not None:
        stop["others"] = stop_others
    events = [start, *CALL, WAIT, *elsewhere, stop,
              {"seq": 51, "kind": "pair", "start": 1, "stop": 50}]
    [interval] = analyse(EVENTS.validate_python(events)).intervals
    return interval


def test_the_learners_other_threads_cpu_time_is_unexplained() -> None:
    # The reading thread explains all but 0.2 ms; its other threads spent 6 ms meanwhile.
    interval = _threaded(7_000_000, 13_000_000)
    assert interval.thread_cpu_ns == 6_000_000
    assert interval.unexplained_cpu_ns == 6_200_000
    assert interval.over_cpu_bound and interval.threads_did_most


def test_a_start_read_before_any_learner_thread_counts_as_zero() -> None:
    interval = _threaded(None, 3_000_000)  # the first such thread began inside
    assert interval.thread_cpu_ns == 3_000_000
    assert interval.unexplained_cpu_ns == 3_200_000


def test_no_thread_figure_or_reads_on_two_threads_count_no_thread_time() -> None:
    assert _threaded(None, None).thread_cpu_ns == 0
    assert _threaded(None, None).unexplained_cpu_ns == 200_000
    assert _threaded(1_000, 9_000_000, stop_th=1).thread_cpu_ns == 0


def test_the_reading_threads_own_work_is_not_blamed_on_other_threads() -> None:
    interval = _threaded(0, 100_000)
    assert interval.thread_cpu_ns == 100_000
    assert not interval.threads_did_most


def test_a_wait_handed_to_another_thread_is_a_wait_there_too() -> None:
    # `await asyncio.to_thread(out.block_until_ready)`: the helper thread's wait (and a
    # call it made and saw return) is credited as the reading thread's would be; its
    # other 4 ms of CPU time stay the learner's.
    helper = 7
    wait = {"seq": 5, "kind": "wait", "how": "block_until_ready", "arrays": [5],
            "site": SITE, "th": helper, "cpu": 100_000, "cpu_end": 1_100_000}
    call = [{"seq": 6, "kind": "call", "name": "f", "site": SITE, "inputs": [1],
             "th": helper, "cpu": 2_000_000},
            {"seq": 7, "kind": "return", "call": 6, "outputs": [8], "th": helper,
             "cpu": 3_000_000}]
    interval = _threaded(7_000_000, 13_000_000, 0, wait, *call)
    assert interval.thread_cpu_ns == 4_000_000
    assert interval.unexplained_cpu_ns == 4_200_000
    # A call whose return comes after the stop read is not credited (its span is not
    # known to lie inside), nor is anything on the reading thread twice.
    late = {**call[1], "seq": 60}
    assert _threaded(7_000_000, 13_000_000, 0, wait, call[0]).thread_cpu_ns == 5_000_000
    assert _threaded(7_000_000, 13_000_000, 0, wait, call[0], late).thread_cpu_ns == 5_000_000
    # Never below zero, whatever the other thread's stamps say.
    assert _threaded(7_000_000, 7_500_000, 0, wait).thread_cpu_ns == 0
