"""What a warm pool child does before its job, and when the pool starts one (issue 10).

- A pool child compiles the probe's spin and measures its rate while it waits for a job,
  and stops measuring the moment a job arrives; a rate scaled up from a shorter run never
  underestimates a real run, so the probe's duration, which `covers-device-work` compares
  samples against, is never too short because of it.
- The pool does not start replacement children while a grade is in flight and a spare
  warm child is already waiting: they would take CPU from that grade.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from syncgrade import grading, pool, sandbox
from syncgrade.child import harness, spin_executable, workloads
from syncgrade.child.__main__ import Warmup
from syncgrade.child.harness import needs_spin_rate
from syncgrade.pool import WarmPool, children_to_start

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions
SOLUTION = SOLUTIONS / "exercise-1" / "solution.py"

FIXED_S = 2e-4  # a fake spin run: this fixed cost (dispatch, wait) ...
PER_STEP_S = 5e-6  # ... plus this per step
# measure_spin's jitted spin: the tests pass a fake _time_spin, which never calls it.
UNUSED_SPIN: Any = None


def _fake_run(steps_seen: list[int]) -> Any:
    def time_spin(_fn: Any, _x: Any, steps: int, _clock: Any, **_: Any) -> float:
        steps_seen.append(steps)
        return FIXED_S + PER_STEP_S * steps
    return time_spin


# --------------------------------------------------------------------------- the rate


def test_the_rate_is_measured_on_a_run_of_at_least_10_ms() -> None:
    steps_seen: list[int] = []
    rate = workloads.measure_spin(UNUSED_SPIN, time.perf_counter, _time_spin=_fake_run(steps_seen))
    assert rate is not None
    assert rate.seconds >= 0.01
    assert rate.seconds == FIXED_S + PER_STEP_S * rate.steps
    assert steps_seen[0] == 10  # the compiling run comes first
    assert steps_seen[-2:] == [rate.steps, rate.steps]  # the faster of two runs is kept


def test_the_measured_run_is_at_most_about_twice_the_10_ms_it_needs() -> None:
    # The step count doubles: the first run past 10 ms is under ~20 ms, and it is run
    # twice in every grading child. At 8 us a step, quadrupling went from 800 steps (6.6
    # ms) to 3200 (26 ms).
    steps_seen: list[int] = []

    def time_spin(_fn: Any, _x: Any, steps: int, _clock: Any, **_: Any) -> float:
        steps_seen.append(steps)
        return FIXED_S + 8e-6 * steps

    rate = workloads.measure_spin(UNUSED_SPIN, time.perf_counter, _time_spin=time_spin)
    assert rate is not None
    assert 0.01 <= rate.seconds < 2 * 0.01 + FIXED_S
    assert steps_seen[1:] == [200, 400, 800, 1600, 1600]  # 13 ms, then once more


def test_the_search_starts_where_it_is_told_never_below_its_own_start() -> None:
    # A child forked from a zygote starts where the zygote's measurement ended: fewer
    # runs, and the rate kept is still that of the first count past 10 ms.
    steps_seen: list[int] = []
    rate = workloads.measure_spin(UNUSED_SPIN, time.perf_counter, first_steps=1600,
                                  _time_spin=_fake_run(steps_seen))
    assert rate is not None and rate.seconds >= 0.01
    assert steps_seen == [10, 1600, 3200, 3200]  # 8.2 ms, then 16.2 ms twice
    low: list[int] = []
    workloads.measure_spin(UNUSED_SPIN, time.perf_counter, first_steps=50,
                           _time_spin=_fake_run(low))
    assert low[1] == workloads.FIRST_STEPS


def _timed_spin(wall_s: float, cpu_s: float, backend: str) -> float:
    """``workloads.time_spin`` of a run whose wall clock and process CPU clock advance by
    ``wall_s`` and ``cpu_s`` (the device calls are stand-ins)."""
    walls, cpus = iter([10.0, 10.0 + wall_s]), iter([3.0, 3.0 + cpu_s])
    return workloads.time_spin(
        lambda x, n: x, np.ones(4, np.float32), 100, lambda: next(walls),
        _put=lambda value: value, _wait=lambda array: array,
        _cpu_clock=lambda: next(cpus), _backend=lambda: backend)


def test_a_spin_timed_while_the_cores_were_busy_counts_its_work_not_the_wait() -> None:
    # Other processes held the cores: the run took three times its work on the wall
    # clock. On the CPU backend the work is what the process's CPU clock says, so the
    # probe's duration D is not inflated and a correct learner sample taken in a quiet
    # moment is not judged against it (covers-device-work once failed a correct wait so).
    assert _timed_spin(0.150, 0.050, "cpu") == pytest.approx(0.050)
    # Other threads of the process count in its CPU time: then the wall time is shorter.
    assert _timed_spin(0.050, 0.080, "cpu") == pytest.approx(0.050)
    # On an accelerator the device does the work while the process mostly waits: its
    # CPU time says nothing about the work, and the wall time is kept.
    assert _timed_spin(0.150, 0.001, "gpu") == pytest.approx(0.150)


@pytest.mark.parametrize("seconds", [0.02, 0.05, 0.1, 1.0])
def test_a_scaled_estimate_never_underestimates_a_longer_run(seconds: float) -> None:
    rate = workloads.measure_spin(UNUSED_SPIN, time.perf_counter, _time_spin=_fake_run([]))
    assert rate is not None
    steps = rate.steps_for(seconds)
    real = FIXED_S + PER_STEP_S * steps
    assert rate.estimate(steps) >= real
    assert rate.estimate(steps) <= real * 1.05  # and stays close to it
    assert abs(real - seconds) <= 0.05 * seconds  # the probe is about as long as asked


def test_measuring_stops_as_soon_as_it_is_told_to() -> None:
    steps_seen: list[int] = []
    asked = iter([False, False, True])
    rate = workloads.measure_spin(UNUSED_SPIN, time.perf_counter, stop=lambda: next(asked),
                                  _time_spin=_fake_run(steps_seen))
    assert rate is None
    assert len(steps_seen) == 2


def test_a_warm_up_without_a_job_measures_the_spin() -> None:
    frozen_before = gc.get_freeze_count()
    warming = Warmup(None)
    try:
        warming.join()
        rate = warming.spin_rate
        assert isinstance(rate, workloads.SpinRate)
        assert rate.seconds > 0 and rate.steps >= 200  # the faster run may be under 10 ms
        # The imports' objects are frozen (the learner's collections skip them) and the
        # collector, off while importing, is on again before any learner code.
        assert gc.isenabled()
        assert gc.get_freeze_count() > frozen_before
    finally:
        gc.unfreeze()  # this test process is not a child: its objects may be collected


def test_a_zygote_freezes_what_its_imports_made_and_collects_again() -> None:
    script = ("import gc, sys; sys.path.insert(0, sys.argv[1]); import _zygote_main as z; "
              "z.preload(['json', 'decimal']); print(gc.isenabled(), gc.get_freeze_count())")
    launcher = Path(sandbox.__file__).parent
    out = subprocess.run([sys.executable, "-c", script, str(launcher)], capture_output=True,
                         text=True, check=True, timeout=60).stdout.split()
    assert out[0] == "True"
    assert int(out[1]) > 1000  # the interpreter's and the imports' objects


def test_a_warm_up_whose_job_arrived_leaves_the_spin_to_the_harness() -> None:
    warming = Warmup.__new__(Warmup)  # the state right after job_arrived()
    warming._arrived = True
    warming.spin_rate = None
    warming._measure_spin(workloads, spin_executable)
    assert warming.spin_rate is None


# --------------------------------------------------------------------------- the probe


def test_the_probe_uses_the_warm_up_rate_and_quarter_runs_before_and_after_the_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    steps_seen: list[int] = []
    monkeypatch.setattr(harness, "TIME_SPIN", _fake_run(steps_seen))
    rate = workloads.SpinRate(x=np.ones(workloads.PROBE_ELEMENTS, np.float32), steps=4000,
                              seconds=0.03)  # measured while the machine was busy
    built = harness.Harness(recorder=None, inputs={}, rate=rate)  # type: ignore[arg-type]
    probe = built._probe(0.05)
    steps = int(probe.host_args[1])
    short = steps // harness.REMEASURE_DIVISOR
    assert steps == rate.steps_for(0.05)
    # Built before the learner's call: one quarter run already lowered the busy estimate.
    assert steps_seen == [short]
    quarter = FIXED_S + PER_STEP_S * short
    assert probe.seconds == pytest.approx(quarter * steps / short)
    assert probe.seconds < rate.estimate(steps)
    assert probe.seconds >= FIXED_S + PER_STEP_S * steps  # never below a real run
    assert built.probe_seconds == probe.seconds
    assert built._probe(0.05) is probe and steps_seen == [short]  # built once
    seconds = built.remeasure_probe()  # after the call
    assert steps_seen == [short, short]
    assert seconds == pytest.approx(quarter * steps / short)
    assert seconds >= FIXED_S + PER_STEP_S * steps  # still never below a real run
    assert built.probe_seconds == seconds


def test_the_probe_keeps_the_smaller_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(harness, "TIME_SPIN", lambda *_a, **_k: 1.0)  # very slow re-runs
    rate = workloads.SpinRate(x=np.ones(workloads.PROBE_ELEMENTS, np.float32), steps=4000,
                              seconds=0.02)
    built = harness.Harness(recorder=None, inputs={}, rate=rate)  # type: ignore[arg-type]
    assert built._probe(0.05).seconds == pytest.approx(rate.estimate(rate.steps_for(0.05)))
    assert built.remeasure_probe() == pytest.approx(rate.estimate(rate.steps_for(0.05)))


# --------------------------------------------------------------------------- the pool


@pytest.mark.parametrize(("size", "idle", "in_use", "expected"), [
    (2, 0, 0, 2),  # filling up
    (2, 1, 0, 1),  # topping up once nothing runs
    (2, 2, 0, 0),
    (2, 1, 1, 0),  # a grade runs and a spare is waiting: wait for the grade
    (2, 0, 1, 1),  # no spare: one now
    (2, 0, 2, 2),  # a batch of two: both now
    (2, 1, 2, 1),
    (1, 0, 1, 1),  # a pool of one refills at once
    (4, 1, 2, 1),
    (4, 3, 1, 0),
])
def test_children_to_start(size: int, idle: int, in_use: int, expected: int) -> None:
    assert children_to_start(size, idle, in_use) == expected


def test_a_pool_starts_no_child_while_a_grade_runs_and_a_spare_waits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pool.ENV_VAR, raising=False)
    with WarmPool(size=2, wait_s=120) as warm:
        in_flight_at_start: list[int] = []
        start_one = warm._start_one

        def recording_start() -> Any:
            in_flight_at_start.append(warm._in_use)
            return start_one()

        monkeypatch.setattr(warm, "_start_one", recording_start)
        for _ in range(2):
            deadline = time.monotonic() + 120
            while warm.warm_children() < 2:
                assert time.monotonic() < deadline, "the pool did not warm up"
                time.sleep(0.05)
            report = grading.grade("exercise-1", SOLUTION, pool=warm)
            assert report.status == "passed", report.summary
        deadline = time.monotonic() + 60
        while len(in_flight_at_start) < 2:
            assert time.monotonic() < deadline, "no replacement was started"
            time.sleep(0.05)
        assert warm.stats.warm == 2 and warm.stats.cold == 0
    assert in_flight_at_start and set(in_flight_at_start) == {0}, in_flight_at_start


def test_a_throughput_pool_refills_at_once_and_a_latency_pool_waits() -> None:
    bare = WarmPool.__new__(WarmPool)  # the refill rule only: no children started
    bare.size, bare._idle, bare._in_use = 2, [object()], 1  # type: ignore[list-item]
    bare.defer_refill = False  # grade batch
    assert bare._to_start() == 1
    bare.defer_refill = True  # the default: a spare is waiting, a grade is in flight
    assert bare._to_start() == 0


# --------------------------------------------------------------------------- a cold child's rate


def test_a_job_needs_the_spin_rate_where_it_builds_from_the_spin() -> None:
    assert needs_spin_rate([{"id": "probe", "args": [{"kind": "probe", "seconds": 0.02}]}])
    assert needs_spin_rate({"args": [{"kind": "tuple", "items": [
        {"kind": "device", "name": "x", "ready": False}]}]})  # an array still computing
    assert not needs_spin_rate([{"args": [{"kind": "device", "name": "x", "ready": True},
                                          {"kind": "host", "name": "y"}]}])


CORRECT_LOOP = ROOT / "exercises/exercise-1/corpus/correct/method_wait.py"
BUSY_BETWEEN_CALLS = CORRECT_LOOP.read_text().replace(
    "def synchronized_samples(", "def _timed_loop(") + '''
import sys
import threading

sys.setswitchinterval(0.05)  # the busy thread keeps the interpreter 50 ms at a time
_stop = threading.Event()


def _busy():
    while not _stop.is_set():
        for _ in range(10_000):
            pass


def _start():
    _stop.clear()
    thread = threading.Thread(target=_busy, daemon=True)
    thread.start()
    return thread


_thread = _start()


def synchronized_samples(fn, args, repeats):
    global _thread
    _stop.set()  # the timed loop runs alone
    _thread.join()
    found = _timed_loop(fn, args, repeats)
    _thread = _start()  # and busy again until the next call
    return found
'''


def test_a_cold_childs_probe_is_measured_before_the_learners_threads_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A thread of the learner's that keeps the interpreter from the module's import on
    and between the grader's calls (each call stops it first, so every timed interval
    is clean) would slow every run of the spin's rate measurement, made after the import
    in a cold child: the probe's estimated duration came out many times its real length
    (18-19 ms against samples of 0.2-0.3 ms) and the correct file failed `covers-device-work`.
    A cold child now measures the rate before the learner's module runs, as a pool
    child's warm-up does."""
    monkeypatch.setenv(pool.ENV_VAR, "0")  # a cold child
    report = grading.grade("exercise-1", source=BUSY_BETWEEN_CALLS, display_name="busy.py",
                           timeout=120)
    failed = {c.id: c.message for c in report.checks if c.status == "failed"}
    assert "covers-device-work" not in failed, failed
    assert report.status == "passed", failed
