"""Unrecorded blocking inside an interval (issue 33, item 2): time the timing thread spent
off a CPU and not runnable outside every recorded operation, from hand-made events
(blocked-clock stamps ``blk`` in ns; no clock or machine involved)."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from syncgrade.analysis import UNRECORDED_BLOCK_BOUND_NS, analyse
from syncgrade.trace import Event

EVENTS = TypeAdapter(list[Event])
SITE = ["submission.py", 10]
STOP = {"seq": 50, "kind": "timer", "clock": "perf_counter", "value": 2.0,
        "site": ["submission.py", 14], "cpu": 5_000_000, "blk": 40_000_000}


def _interval(*inside: dict[str, Any], stop: dict[str, Any] = STOP) -> Any:
    events = [{"seq": 1, "kind": "timer", "clock": "perf_counter", "value": 1.0,
               "site": SITE, "cpu": 1_000_000, "blk": 10_000_000},
              *inside, stop,
              {"seq": 51, "kind": "pair", "start": 1, "stop": 50}]
    [interval] = analyse(EVENTS.validate_python(events)).intervals
    return interval


# A call blocked 1 ms in its dispatch (10 -> 11 ms on the blocked clock), then a wait
# blocked 25 ms for the output (12 -> 37 ms): 30 ms between the reads, 26 ms recorded.
CALL = [{"seq": 2, "kind": "call", "name": "f", "site": SITE, "inputs": [1],
         "cpu": 1_100_000, "blk": 10_000_000},
        {"seq": 3, "kind": "return", "call": 2, "outputs": [5], "cpu": 2_000_000,
         "blk": 11_000_000}]
WAIT = {"seq": 4, "kind": "wait", "how": "block_until_ready", "arrays": [5],
        "site": ["submission.py", 12], "cpu": 2_050_000, "cpu_end": 4_950_000,
        "blk": 12_000_000, "blk_end": 37_000_000}


def test_blocking_outside_the_recorded_operations_is_unrecorded() -> None:
    interval = _interval(*CALL, WAIT)
    # 1 ms between the return and the wait, 3 ms after the wait: 4 ms unrecorded.
    assert interval.unrecorded_blocked_ns == 4_000_000
    assert (interval.unrecorded_blocked_ns or 0) > UNRECORDED_BLOCK_BOUND_NS
    before, after, blocked = interval.unrecorded_block_gap()
    assert (before.kind, after.kind, blocked) == ("wait", "timer", 3_000_000)


def test_a_correct_interval_blocks_only_inside_its_call_and_wait() -> None:
    stop = {**STOP, "blk": 37_000_000}
    call = [CALL[0], {**CALL[1], "blk": 12_000_000}]
    interval = _interval(*call, WAIT, stop=stop)
    assert interval.unrecorded_blocked_ns == 0
    assert (interval.unrecorded_blocked_ns or 0) <= UNRECORDED_BLOCK_BOUND_NS


def test_blocking_while_the_output_still_runs_is_credited() -> None:
    # The wait found the output still running (``pending``): the 1 ms between the
    # return and the wait overlapped the device's work; the 3 ms after the wait did not.
    interval = _interval(*CALL, {**WAIT, "pending": True})
    assert interval.unrecorded_blocked_ns == 3_000_000


def test_a_wait_recorded_after_it_ran_is_credited_from_its_begin_stamp() -> None:
    conversion = {"seq": 4, "kind": "wait", "how": "numpy.asarray", "arrays": [5],
                  "site": SITE, "cpu0": 2_050_000, "cpu": 4_950_000,
                  "blk0": 12_000_000, "blk": 37_000_000}
    assert _interval(*CALL, conversion).unrecorded_blocked_ns == 4_000_000
    placement = {"seq": 5, "kind": "placement", "arrays": [7], "site": SITE,
                 "cpu0": 4_960_000, "cpu": 4_970_000, "blk0": 37_000_000,
                 "blk": 39_000_000}
    assert _interval(*CALL, conversion, placement).unrecorded_blocked_ns == 2_000_000


def test_another_threads_blocking_is_not_the_readers() -> None:
    # A thread of the learner's waiting on something else than the timed work (a wait on
    # its output is a hand-off: test_a_wait_handed_to_another_thread_is_not_judged).
    other = {**WAIT, "th": 1, "arrays": [9]}
    assert _interval(*CALL, other).unrecorded_blocked_ns == 29_000_000


def test_nothing_is_judged_without_blocked_stamps() -> None:
    stop = {key: value for key, value in STOP.items() if key != "blk"}
    interval = _interval(*CALL, WAIT, stop=stop)
    assert interval.unrecorded_blocked_ns is None
    assert (interval.unrecorded_blocked_ns or 0) <= UNRECORDED_BLOCK_BOUND_NS
    assert interval.unrecorded_block_gap() is None
    assert interval.explained_blocked() == []


def test_a_wait_without_an_end_stamp_explains_nothing() -> None:
    # A wait whose end mark was lost (or forged away) credits no blocking: the bound
    # then sees the whole wait.
    wait = {key: value for key, value in WAIT.items() if key != "blk_end"}
    interval = _interval(*CALL, wait)
    assert interval.unrecorded_blocked_ns == 29_000_000
    assert interval.unrecorded_blocked_ns > UNRECORDED_BLOCK_BOUND_NS


def test_the_pause_is_named_by_the_events_around_it_despite_the_clocks_jitter() -> None:
    # The output was ready: the call, its return and its wait all stamped within a few
    # µs of the start read, some before it (the clock jitters); the 5 ms pause follows
    # the wait. Sorting by stamp would put the wait before the start read and name the
    # start read's line; in the events' order the stretch lies between wait and stop.
    call = [{**CALL[0], "blk": 9_994_651}, {**CALL[1], "blk": 9_994_852}]
    wait = {**WAIT, "blk": 9_994_341, "blk_end": 9_996_000}
    stop = {**STOP, "blk": 15_000_000}
    interval = _interval(*call, wait, stop=stop)
    before, after, blocked = interval.unrecorded_block_gap()
    assert (before.kind, after.kind) == ("wait", "timer")
    assert blocked == 15_000_000 - 10_000_000


def test_a_wait_handed_to_another_thread_is_not_judged() -> None:
    # ``await asyncio.to_thread(out.block_until_ready)``: the reading thread is blocked
    # while a worker waits on the timed output, and for as long as the worker waits for a
    # CPU, which no stamp carries: the interval's blocking is not judged (its length is
    # sample-duration's). The same 30 ms with the wait on the reading thread is.
    handed = {**WAIT, "th": 1, "cpu": 100, "cpu_end": 200, "blk": 0, "blk_end": 25_000_000}
    assert _interval(*CALL, handed).unrecorded_blocked_ns is None
    assert _interval(*CALL, {**handed, "arrays": [9], "pending": True}
                     ).unrecorded_blocked_ns is None
    assert _interval(*CALL, {**handed, "arrays": [9]}).unrecorded_blocked_ns == 29_000_000
    assert _interval(*CALL, WAIT).unrecorded_blocked_ns == 4_000_000
