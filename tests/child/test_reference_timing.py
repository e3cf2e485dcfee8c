"""The child's own timing of the timed call (``child/reference.py``, the ``sample-duration``
check's reference), in this process: which recorded call it times, how, and when it
declines. No hooks are installed here, so ``jax.jit`` is jax's own and every entry below
is built the way ``instrument._remember`` records one:
``[count, callee, call, args, kwargs, statics, donating, numbers]``."""

from __future__ import annotations

import functools
import hashlib
import os
import threading
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncgrade.child import instrument, reference


def _entry(call: Any, args: tuple[Any, ...], count: int = 1, callee: Any = None,
           statics: Any = None, donating: bool = False,
           numbers: tuple[int, ...] = ()) -> list[Any]:
    return [count, call if callee is None else callee, call, args, {}, statics, donating,
            list(numbers)]


def _timings(entries: list[list[Any]], requests: list[dict[str, Any]],
             designated: list[Any]) -> list[dict[str, Any]]:
    reference.clear()
    for index, entry in enumerate(entries):
        instrument.TIMED_CALLS[(index, None)] = entry
    return reference.reference_timings(requests, designated)


def _request(fn: Any = None, static: Any = None, phases: tuple[str, ...] = ()
             ) -> dict[str, Any]:
    return {"samples": [1], "fn": fn, "static": static,
            "phases": ["dispatch", "device execution", "output wait", *phases]}


def test_times_each_designated_call_most_called_first_with_its_call_numbers() -> None:
    x = jnp.ones((64, 64))
    fast = jax.jit(lambda a: a + 1)
    slow = jax.jit(lambda a: jnp.tanh(a @ a @ a @ a))
    fast(x).block_until_ready()
    slow(x).block_until_ready()
    # The learner's warm-up of `fast` once, the timed loop of `slow` six times: both are
    # candidates (which one the samples timed is the parent's to tell), most called first.
    found = _timings([_entry(fast, (x,), numbers=(3,)),
                      _entry(slow, (x,), count=6, numbers=(5, 9, 13, 17, 21, 25))],
                     [_request()], designated=[fast, slow])
    assert [entry["calls"] for entry in found] == [[5, 9, 13, 17, 21, 25], [3]]
    for entry in found:
        assert entry["samples"] == [1] and "missing" not in entry
        assert reference.MIN_RUNS - 1 <= len(entry["seconds"]) <= reference.MAX_RUNS
        assert all(s > 0 for s in entry["seconds"])
        assert entry["runnable_per_cpu"] is None or entry["runnable_per_cpu"] >= 0
    # More signatures than it times: the most called ones.
    many = [_entry(fast, (jnp.ones((n,)),), count=n, numbers=(n,)) for n in range(1, 6)]
    for recorded in many:
        recorded[2](*recorded[3]).block_until_ready()
    timed = _timings(many, [_request()], designated=[fast])
    assert [found["calls"] for found in timed] == [[5], [4], [3]][:reference.MAX_CANDIDATES]


def test_the_callable_with_calls_inside_the_innermost_timed_windows_is_timed_first(
) -> None:
    """A learner's check jit called more often than its timed loop, after it and outside
    every sample, is not the learner's timed callable: the calls inside the learner's
    innermost subtraction windows decide, not the count; a total around everything is
    no innermost window."""
    x = jnp.ones((8,))
    timed = jax.jit(lambda a: a * 2)
    check = jax.jit(lambda a: a * 5)
    timed(x).block_until_ready()
    check(x).block_until_ready()
    samples = [(10, 13), (20, 23), (30, 33)]  # each holds one call of `timed`
    total = (1, 90)  # the whole loop and the checks after it
    entries = [_entry(timed, (x,), count=4, numbers=(5, 11, 21, 31)),
               _entry(check, (x,), count=9, numbers=(40, 45, 50, 55, 60, 65, 70, 75, 80))]
    reference.clear()
    instrument.PAIRS[:] = [(a, b, 0.0, 1.0) for a, b in [*samples, total]]
    try:
        found = _timings(entries, [_request(fn="")], designated=[])
    finally:
        instrument.PAIRS.clear()
    assert [entry["calls"] for entry in found] == [[5, 11, 21, 31]]
    # The grader's own callables too: a call outside every sample is not run again.
    instrument.PAIRS[:] = [(a, b, 0.0, 1.0) for a, b in [*samples, total]]
    try:
        handed = _timings(entries, [_request()], designated=[timed, check])
    finally:
        instrument.PAIRS.clear()
    assert [entry["calls"] for entry in handed] == [[5, 11, 21, 31]]
    # No windows (samples not made by subtracting readings): the most called, as before.
    [fallback] = _timings(entries, [_request(fn="")], designated=[])
    assert len(fallback["calls"]) == 9


def test_the_contract_selects_whose_callable_and_which_static_values() -> None:
    x = jnp.ones((8,))
    given = jax.jit(lambda a: a * 2)
    own = jax.jit(lambda a: a * 3)
    given(x).block_until_ready()
    own(x).block_until_ready()
    entries = [_entry(given, (x,), count=5), _entry(own, (x,), count=2, statics=[4])]
    # The learner's own jit (fn=""), never the grader's, whatever it was called.
    [mine] = _timings(entries, [_request(fn="")], designated=[given])
    assert mine["seconds"]
    # Of the learner's own jits, only the most called one's signatures: another of its
    # programs (a check with a `jax.debug.print`) is never run by the grader.
    check = jax.jit(lambda a: a - 3)
    check(x).block_until_ready()
    wider = jnp.ones((16,))
    own(wider).block_until_ready()
    found = _timings([_entry(own, (x,), count=5, numbers=(2,)),
                      _entry(check, (x,), count=1, numbers=(9,)),
                      _entry(own, (wider,), count=1, numbers=(7,))],
                     [_request(fn="")], designated=[given])
    assert [entry["calls"] for entry in found] == [[2], [7]]
    # Static values that no recorded call used: nothing to time.
    [other] = _timings(entries, [_request(fn="", static=[5])], designated=[given])
    assert other["missing"] == "no recorded call of the timed callable"
    # A callable the grader handed over, but the learner never called it.
    [none] = _timings([_entry(own, (x,))], [_request()], designated=[given])
    assert "missing" in none


def test_declines_what_is_not_a_compiled_call_on_plain_arguments() -> None:
    x = jnp.ones((8,))

    def python_function(a: Any) -> Any:
        time.sleep(1)  # never run: the grader times compiled programs only
        return a

    [plain] = _timings([_entry(python_function, (x,))], [_request(fn="")], designated=[])
    assert plain["missing"] == "the timed callable is not a jax.jit function"

    class Box:  # a learner's object among the arguments: its methods could run
        pass

    jitted = jax.jit(lambda a, b: a)
    [boxed] = _timings([_entry(jitted, (x, Box()))], [_request(fn="")], designated=[])
    assert "not plain arrays" in boxed["missing"]


def test_a_donating_or_placing_call_gets_fresh_inputs_each_run() -> None:
    step = jax.jit(lambda a: a * 0.5 + 1.0, donate_argnums=0)
    x = jax.device_put(np.ones((256,), np.float32))
    step(x).block_until_ready()  # the learner's call consumed x
    assert x.is_deleted()
    [donated] = _timings([_entry(step, (x,), donating=True)], [_request(fn="")],
                         designated=[])
    assert len(donated["seconds"]) >= 2
    # Placement and readback inside: host copies placed inside the clock each run.
    predict = jax.jit(lambda a, b: jnp.tanh(a @ b))
    a, b = jnp.ones((32, 16)), jnp.ones((16, 8))
    predict(a, b).block_until_ready()
    [end_to_end] = _timings([_entry(predict, (a, b))],
                            [_request(phases=("input placement", "host transfer"))],
                            designated=[predict])
    assert end_to_end["seconds"] and not a.is_deleted()


def test_a_program_compiled_ahead_of_time_is_timed_too() -> None:
    x = jnp.ones((8,))
    compiled = jax.jit(lambda a: a - 1).lower(x).compile()
    call = functools.partial(type(compiled).__call__, compiled)
    [aot] = _timings([_entry(call, (x,), callee=compiled)], [_request(fn="")],
                     designated=[])
    assert aot["seconds"]


def test_the_stall_watch_reports_windows_in_perf_counter_seconds() -> None:
    watch = reference.StallWatch()
    while watch.wakes() == 0:  # the thread runs (on a loaded machine, later)
        time.sleep(0.001)
    before = time.perf_counter()
    end = before + 0.05
    while time.perf_counter() < end:  # hold the interpreter: the watch cannot run
        pass
    # Let the watch finish the wake-up the loop delayed (on a loaded machine it may not
    # have had a CPU during the loop at all).
    woken = watch.wakes()
    while watch.wakes() == woken:
        time.sleep(0.001)
    stalls = watch.stop()
    assert stalls, "a 50 ms busy loop holding the GIL is a stall the watch sees"
    assert all(before - 0.1 <= slept < woke and 0 < late <= woke - slept
               for slept, woke, late in stalls)
    latest = watch.latest_wake()
    assert latest is not None and latest >= max(late for _, _, late in stalls)
    assert abs(watch.realtime_offset - (time.time() - time.perf_counter())) < 0.5


def test_the_watch_measures_each_wake_ups_lateness_on_its_own_clock(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A fake clock: each sleep of the watch lasts its period plus a scripted lateness.
    period = reference.STALL_PERIOD_S
    lateness = [0.0002, 0.004, 0.0, 0.030, 0.0005]
    now = [100.0]
    state: list[Any] = [False, [], [0, 0.0]]

    def sleep(seconds: float) -> None:
        assert seconds == period
        now[0] += seconds + lateness.pop(0)
        if not lateness:
            state[0] = True  # stop after the scripted wake-ups

    monkeypatch.setattr(reference, "_CLOCK", lambda: now[0])
    monkeypatch.setattr(reference, "_SLEEP", sleep)
    reference.watch_stalls(state)
    assert state[2][0] == 5
    assert state[2][1] == pytest.approx(0.030)  # the latest wake-up: the load term's measure
    # Only the wake-ups later than STALL_MIN_S are stalls, each with its whole sleep.
    stalls = state[1]
    assert [round(late, 6) for _, _, late in stalls] == [0.004, 0.030]
    slept, woke, _late = stalls[1]
    assert woke - slept == pytest.approx(period + 0.030)


def test_the_watch_notes_the_windows_it_held_the_interpreter(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A fake clock: each wake-up comes ``late`` past its time, then the watch holds the
    # interpreter ``held`` seconds (its clock reads advance it).
    period = reference.STALL_PERIOD_S
    script = [(0.0, 0.0), (0.0, 0.008), (0.020, 0.0), (0.003, 0.0)]
    now = [100.0]
    state: list[Any] = [False, [], [0, 0.0], [], []]
    woken: list[float] = []  # the hold of the wake-up whose first read is still to come
    holding: list[float] = []  # the hold to add at the wake-up's next read

    def clock() -> float:
        if holding:
            now[0] += holding.pop()
        if woken:  # the wake-up's first read; the next one ends its hold
            holding.append(woken.pop())
        return now[0]

    def sleep(seconds: float) -> None:
        late, held = script.pop(0)
        now[0] += seconds + late
        woken.append(held)
        if not script:
            state[0] = True

    monkeypatch.setattr(reference, "_CLOCK", clock)
    monkeypatch.setattr(reference, "_SLEEP", sleep)
    reference.watch_stalls(state)
    holds = [(round(start - 100.0, 6), round(end - 100.0, 6), round(held, 6))
             for start, end, held in state[4]]
    # Only the preempted hold, from the wake-up to the release. A late wake-up (20 ms:
    # a wait for a CPU, and a stall) held the interpreter a few us: no hold.
    assert holds == [(2 * period, 2 * period + 0.008, 0.008)]
    assert [round(late, 6) for _, _, late in state[1]] == [0.020, 0.003]


def _schedstat(folder: Any, tid: int, waited_ns: int) -> None:
    (folder / str(tid)).mkdir(exist_ok=True)
    (folder / str(tid) / "schedstat").write_text(f"123456 {waited_ns} 7\n")


def test_the_run_queue_reports_the_longest_wait_of_one_thread_since_the_last_sweep(
        tmp_path: Any) -> None:
    # A fake /proc/self/task: three threads, their waits for a CPU so far (ns).
    for tid, waited in ((11, 1_000_000), (12, 5_000_000), (13, 0)):
        _schedstat(tmp_path, tid, waited)
    (tmp_path / "14").mkdir()  # a thread that exited before its file was read
    queue = reference.RunQueue(str(tmp_path))
    assert queue.measured
    assert queue.sweep() == 0.0  # nothing waited since the files were opened
    _schedstat(tmp_path, 11, 31_000_000)  # waited 30 ms more
    _schedstat(tmp_path, 12, 25_000_000)  # 20 ms more, at the same time
    # The longest, not the sum: threads waiting side by side delay a sample once.
    assert queue.sweep() == pytest.approx(0.030)
    assert queue.sweep() == 0.0  # each wait is reported once
    assert queue.intact()
    queue.close()


def test_the_run_queue_finds_threads_begun_later_but_not_the_ones_skipped(
        tmp_path: Any) -> None:
    _schedstat(tmp_path, 11, 1_000_000)
    queue = reference.RunQueue(str(tmp_path))
    queue.skip(13)  # the watch's own thread, begun after the queue was made
    _schedstat(tmp_path, 12, 40_000_000)  # a helper thread the call started: 40 ms so far
    _schedstat(tmp_path, 13, 90_000_000)
    # All of a new thread's wait fell since the last sweep: counted from 0, not from
    # when it was found; the skipped thread's never.
    assert queue.sweep() == pytest.approx(0.040)
    _schedstat(tmp_path, 12, 45_000_000)
    assert queue.sweep() == pytest.approx(0.005)
    # A thread that exited is let go, and a new thread given its number is found anew.
    (tmp_path / "12" / "schedstat").write_text("")  # /proc: an exited thread's file
    (tmp_path / "12" / "schedstat").unlink()      # reads nothing, then is gone
    os.rmdir(tmp_path / "12")
    assert queue.sweep() == 0.0
    _schedstat(tmp_path, 12, 3_000_000)
    assert queue.sweep() == pytest.approx(0.003)
    assert queue.intact()
    queue.close()
    _schedstat(tmp_path, 14, 7_000_000)
    assert queue.sweep() == 0.0  # closed: no file opened after


def test_a_thread_left_out_at_its_first_listing_is_never_opened_later(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Over the file cap, a new thread is left out; once room frees up it must not be
    # opened with all its life's wait counted from 0 (credited to one period).
    monkeypatch.setattr(reference, "RUN_QUEUE_FILES", 1)
    _schedstat(tmp_path, 11, 1_000_000)
    queue = reference.RunQueue(str(tmp_path))
    _schedstat(tmp_path, 12, 0)  # begun while the cap is full: left out
    assert queue.sweep() == 0.0
    _schedstat(tmp_path, 11, 1_000_000)
    (tmp_path / "11" / "schedstat").write_text("")  # thread 11 exits: room for one
    _schedstat(tmp_path, 12, 500_000_000)  # thread 12 has waited 500 ms meanwhile
    assert queue.sweep() == 0.0
    assert queue.sweep() == 0.0
    queue.close()


def test_a_run_queue_file_swapped_under_its_number_is_seen(tmp_path: Any) -> None:
    _schedstat(tmp_path, 11, 0)
    queue = reference.RunQueue(str(tmp_path))
    forged = tmp_path / "forged"
    forged.write_text("0 999999999999 0\n")
    fd = queue._files[0][0]
    replacement = os.open(forged, os.O_RDONLY)
    os.dup2(replacement, fd)  # learner code reopening the grader's number on its file
    os.close(replacement)
    assert not queue.intact()
    queue.close()


def test_without_schedstat_the_run_queue_measures_nothing(tmp_path: Any) -> None:
    # gVisor: no per-thread schedstat (or no task folder at all).
    (tmp_path / "11").mkdir()
    assert not reference.RunQueue(str(tmp_path)).measured
    assert not reference.RunQueue(str(tmp_path / "missing")).measured
    # A stand-in file of zeros (no thread has ever run) measures nothing either: its
    # waits would always read 0, and the bound would lose its margins for nothing.
    (tmp_path / "11" / "schedstat").write_text("0 0 0\n")
    assert not reference.RunQueue(str(tmp_path)).measured


class _FakeQueue:
    """A run queue whose sweeps return scripted waits (seconds)."""

    measured = True
    opened = 99.0

    def __init__(self, waits: list[float]) -> None:
        self.waits = waits

    def sweep(self) -> float:
        return self.waits.pop(0)

    def skip(self, native_id: int) -> None:
        self.skipped = native_id


def test_the_watch_notes_each_period_a_thread_waited_for_a_cpu(
        monkeypatch: pytest.MonkeyPatch) -> None:
    period = reference.STALL_PERIOD_S
    now = [100.0]
    state: list[Any] = [False, [], [0, 0.0], []]
    queue = _FakeQueue([0.0002, 0.008, 0.0, 0.004])

    def sleep(seconds: float) -> None:
        now[0] += seconds
        if len(queue.waits) == 1:
            state[0] = True  # stop after the scripted sweeps

    monkeypatch.setattr(reference, "_CLOCK", lambda: now[0])
    monkeypatch.setattr(reference, "_SLEEP", sleep)
    monkeypatch.setattr(reference, "SWEEP_EVERY", 1)  # a sweep at every wake-up
    reference.watch_stalls(state, queue)  # type: ignore[arg-type]
    # Only the periods with a wait longer than WAIT_MIN_S, each from the sweep before's
    # start (the first: when the files were opened) to this sweep's end.
    assert [round(w, 6) for _, _, w in state[3]] == [0.008, 0.004]
    start, end, _waited = state[3][0]
    assert start == pytest.approx(100.0 + period)  # the first wake-up: the sweep before
    assert end == pytest.approx(100.0 + 2 * period)
    assert state[3][1][0] == pytest.approx(100.0 + 3 * period)
    assert state[1] == []  # no wake-up was late: the waits are no stalls


def test_the_watch_reads_the_waits_every_fifth_wake_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    period = reference.STALL_PERIOD_S
    now = [100.0]
    state: list[Any] = [False, [], [0, 0.0], []]
    queue = _FakeQueue([0.008, 0.004, 0.0])

    def sleep(seconds: float) -> None:
        now[0] += seconds
        if state[2][0] == 12:
            state[0] = True  # stop after 13 wake-ups: sweeps at the 5th and the 10th

    monkeypatch.setattr(reference, "_CLOCK", lambda: now[0])
    monkeypatch.setattr(reference, "_SLEEP", sleep)
    reference.watch_stalls(state, queue)  # type: ignore[arg-type]
    assert queue.waits == [0.0]  # two sweeps, not thirteen
    (_first, _), (second, third) = [(s, e) for s, e, _ in state[3]]
    assert second == pytest.approx(100.0 + 5 * period)  # the 5th wake-up: the sweep before
    assert third == pytest.approx(100.0 + 10 * period)  # a period of 5 wake-ups


def test_the_watch_measures_a_thread_of_the_call_kept_waiting_for_a_cpu() -> None:
    # Two busy threads on one CPU (this process's affinity narrowed to one): the thread
    # that existed when the watch started waits about half of the time, and the watch
    # says so. (Threads begun after the watch: the next test.)
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("no CPU affinity on this platform")
    cpus = os.sched_getaffinity(0)
    stop = [False]

    def spin() -> None:
        while not stop[0]:
            hashlib.sha256(bytes(1 << 20)).digest()  # releases the interpreter

    busy = threading.Thread(target=spin, daemon=True)
    os.sched_setaffinity(0, {min(cpus)})
    try:
        busy.start()
        watch = reference.StallWatch()
        end = time.perf_counter() + 0.3
        while time.perf_counter() < end:  # the test's thread: busy too, on the same CPU
            hashlib.sha256(bytes(1 << 20)).digest()
        watch.stop()
        waits = watch.waits()
    finally:
        stop[0] = True
        busy.join()
        os.sched_setaffinity(0, cpus)
    if not reference.RunQueue().measured:  # gVisor: no schedstat, nothing claimed
        assert waits is None
        return
    assert waits is not None
    assert sum(waited for _, _, waited in waits) > 0.05, waits
    assert all(start < end and waited > 0 for start, end, waited in waits)


def _run_queue_delay() -> float:
    """The calling thread's time runnable but waiting for a CPU so far, in seconds."""
    with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as stat:
        return int(stat.read().split()[1]) / 1e9


def test_a_thread_started_after_the_watch_is_measured() -> None:
    # The same contention, but the busy threads start after the watch (as a learner's
    # helper threads do: asyncio's worker that waits for the output) while the thread
    # that existed waits for them to end (not runnable; woken when the CPU is free): the
    # watch finds them at its next sweep and measures their waits for the CPU. (What a
    # learner's threads that keep each other waiting are credited is the check's:
    # tests/rubric/test_sample_duration.py.)
    if not hasattr(os, "sched_setaffinity") or not reference.RunQueue().measured:
        pytest.skip("needs CPU affinity and schedstat (Linux, not gVisor)")
    cpus = os.sched_getaffinity(0)
    helpers_waited: list[float] = []

    def spin(until: float) -> None:
        before = _run_queue_delay()
        while time.perf_counter() < until:
            hashlib.sha256(bytes(1 << 20)).digest()
        helpers_waited.append(_run_queue_delay() - before)

    os.sched_setaffinity(0, {min(cpus)})
    try:
        watch = reference.StallWatch()
        until = time.perf_counter() + 0.3
        helpers = [threading.Thread(target=spin, args=(until,), daemon=True)
                   for _ in range(2)]
        for helper in helpers:
            helper.start()
        for helper in helpers:
            helper.join()
        watch.stop()
        waits = watch.waits()
    finally:
        os.sched_setaffinity(0, cpus)
    assert waits is not None
    # Two helpers on one CPU each wait at least while the other runs (about half of the
    # 0.3 s; more under load). The waits hold the longest thread's wait per period; the
    # period before the helpers were found (up to 50 ms, whose wait counts from 0 and so
    # is in the next) and the last one before the stop (not swept: up to 50 ms) aside,
    # that is most of the less-waiting helper's wait.
    measured = sum(waited for _, _, waited in waits)
    assert len(helpers_waited) == 2 and min(helpers_waited) > 0.05, helpers_waited
    assert measured > min(helpers_waited) - 0.1, (waits, helpers_waited)


def test_the_watch_wakes_seldom_enough_to_cost_the_learner_nothing_measurable() -> None:
    # Measured (reference.STALL_PERIOD_S): a 2 ms period added 2.8 % to a ~0.3 ms call's
    # median sample, 10 ms nothing measurable. A shorter period is that cost again.
    assert reference.STALL_PERIOD_S >= 0.010


def test_runs_on_placed_copies_are_warmed_first_outside_the_clock() -> None:
    # The grader's placed copies are not the learner's arrays: a call on them may compile
    # for their placement first, which must not be one of the timed runs.
    calls: list[bool] = []

    def call(a: Any) -> Any:
        calls.append(True)
        return a + 1

    x = jnp.ones((8,))
    placed, starts = reference.time_runs(call, (x,), {}, donating=False,
                                          phases=frozenset({"input placement"}))
    assert len(calls) == len(placed) + 1
    calls.clear()
    plain, _ = reference.time_runs(call, (x,), {}, donating=False, phases=frozenset())
    assert len(calls) == len(plain)  # the learner's own (warm) arrays: no extra run
    # Each run's start read, in order, on the clock the stall watch reads: one run
    # starts no earlier than the one before it ended.
    assert len(starts) == len(placed)
    assert all(later >= start + took for start, took, later
               in zip(starts, placed, starts[1:], strict=False))
