"""The child's blocked clock (``recorder.blocked_clock``, issue 33 item 2): wall time less
CPU time less run-queue delay, per thread, from ``/proc/thread-self/schedstat``; and its
stamps as the real child records them. Assertions on order and on lower bounds a pause
guarantees, never an upper bound on a duration."""

from __future__ import annotations

import _thread
import builtins
import itertools
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from trace_support import trace

from syncgrade.analysis import analyse
from syncgrade.child import recorder as rec
from syncgrade.child.recorder import SCHEDSTAT, blocked_clock
from syncgrade.courses import get_exercise

READABLE = os.path.exists(SCHEDSTAT)
JITTER_NS = 200_000  # far above the few µs measured, far below the 20 ms pause


def test_the_clock_is_wall_time_less_cpu_time_less_run_queue_delay(tmp_path: Path) -> None:
    # A stand-in file: CPU time 123, run-queue delay 456, 7 time slices.
    stand_in = tmp_path / "schedstat"
    stand_in.write_text("123 456 7\n")
    blocked = blocked_clock(str(stand_in))
    before = time.monotonic_ns()
    value = blocked(1_000)
    after = time.monotonic_ns()
    assert value is not None
    assert before - 1_000 - 456 <= value <= after - 1_000 - 456


@pytest.mark.parametrize("text", ["0 0 0\n", "garbage\n", ""])
def test_statistics_off_or_unreadable_give_no_stamp(tmp_path: Path, text: str) -> None:
    stand_in = tmp_path / "schedstat"
    stand_in.write_text(text)
    assert blocked_clock(str(stand_in))(0) is None


def test_no_file_gives_no_stamp_and_is_not_opened_again(tmp_path: Path) -> None:
    blocked = blocked_clock(str(tmp_path / "missing"))
    assert blocked(0) is None
    (tmp_path / "missing").write_text("1 2 3\n")  # appears later: still not judged
    assert blocked(0) is None


def test_each_thread_reads_its_own_file(tmp_path: Path) -> None:
    # /proc/thread-self resolves to the opening thread: each thread keeps its own fd.
    blocked = blocked_clock(SCHEDSTAT if READABLE else str(tmp_path / "none"))
    seen: list[int | None] = []
    worker = threading.Thread(target=lambda: seen.append(blocked(time.thread_time_ns())))
    worker.start()
    worker.join()
    here = blocked(time.thread_time_ns())
    assert (here is None) == (seen[0] is None) == (not READABLE)


@pytest.mark.skipif(not READABLE, reason="no /proc/thread-self/schedstat (gVisor, not Linux)")
def test_a_pause_is_blocked_time() -> None:
    blocked = blocked_clock()
    first = blocked(time.thread_time_ns())
    threading.Event().wait(0.03)
    second = blocked(time.thread_time_ns())
    assert first is not None and second is not None
    # The thread slept at least 30 ms, neither on a CPU nor waiting for one.
    assert second - first >= 25_000_000


PAUSED = """
import threading
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        threading.Event().wait(0.02)  # PAUSES HERE
        samples.append(time.perf_counter() - start)
    return out, samples
"""


@pytest.mark.skipif(not READABLE, reason="no /proc/thread-self/schedstat (gVisor, not Linux)")
def test_the_child_stamps_reads_calls_and_waits_and_sees_the_pause() -> None:
    frame = trace(get_exercise("exercise-1"), PAUSED, timeout=120)["main"]
    intervals = [i for i in analyse(frame.events).intervals if i.calls]
    assert intervals
    for interval in intervals:
        call = interval.calls[-1]
        [wait] = interval.waits_on_timed_output()
        assert call.ret is not None
        stamps = [interval.start.blk, call.call.blk, call.ret.blk, wait.blk, wait.blk_end,
                  interval.stop.blk]
        known = [stamp for stamp in stamps if stamp is not None]
        assert len(known) == len(stamps)
        # Each thread's blocked clock moves forward, to within its jitter of a few µs.
        assert all(b - a > -JITTER_NS for a, b in itertools.pairwise(known))
        # The 20 ms pause lies outside every recorded operation.
        assert (interval.unrecorded_blocked_ns or 0) >= 15_000_000
        gap = interval.unrecorded_block_gap()
        assert gap is not None
        before, after, _blocked = gap
        assert (before.kind, after.kind) == ("wait", "timer")


def test_the_core_stamps_with_a_clock_of_its_own() -> None:
    # The hooks' clock (recorder.BLOCKED) is reachable from learner code, which could
    # replace its code; the core calls a clock of its own, whose globals are the core's
    # private copy, so no learner code runs inside the core's frame through it.
    core: Any = rec.new_core(b"k" * 32, os.open(os.devnull, os.O_WRONLY), ["main"],
                             _thread.get_ident(), frozenset(), None, None, object)
    try:
        own = core.gi_frame.f_locals["blocked_ns"]
        assert own is not rec.BLOCKED and own.__code__ is rec.blocked_clock(SCHEDSTAT).__code__
        assert own.__globals__ is not vars(rec)
        assert own.__globals__["__builtins__"] is not vars(builtins)
    finally:
        core.close()
