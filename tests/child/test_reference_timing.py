"""The child's own timing of the timed call (``child/reference.py``, the ``sample-duration``
check's reference), in this process: which recorded call it times, how, and when it
declines. No hooks are installed here, so ``jax.jit`` is jax's own and every entry below
is built the way ``instrument._remember`` records one:
``[count, callee, call, args, kwargs, statics, donating]``."""

from __future__ import annotations

import functools
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncgrade.child import instrument, reference


def _entry(call: Any, args: tuple[Any, ...], count: int = 1, callee: Any = None,
           statics: Any = None, donating: bool = False) -> list[Any]:
    return [count, call if callee is None else callee, call, args, {}, statics, donating]


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


def test_times_the_designated_callable_called_most_often() -> None:
    x = jnp.ones((64, 64))
    fast = jax.jit(lambda a: a + 1)
    slow = jax.jit(lambda a: jnp.tanh(a @ a @ a @ a))
    fast(x).block_until_ready()
    slow(x).block_until_ready()
    # The learner's warm-up of `fast` once, the timed loop of `slow` six times.
    [found] = _timings([_entry(fast, (x,)), _entry(slow, (x,), count=6)], [_request()],
                       designated=[fast, slow])
    assert found["samples"] == [1] and "missing" not in found
    assert reference.MIN_RUNS - 1 <= len(found["seconds"]) <= reference.MAX_RUNS
    assert all(s > 0 for s in found["seconds"])
    assert found["runnable_per_cpu"] is None or found["runnable_per_cpu"] >= 0


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
    placed = reference.time_runs(call, (x,), {}, donating=False,
                                  phases=frozenset({"input placement"}))
    assert len(calls) == len(placed) + 1
    calls.clear()
    plain = reference.time_runs(call, (x,), {}, donating=False, phases=frozenset())
    assert len(calls) == len(plain)  # the learner's own (warm) arrays: no extra run
