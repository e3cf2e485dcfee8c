"""The CPU time of the threads the learner's code starts, inside a timed interval (issue
33, item 2): counted however the thread was started and whether it ended inside the
interval or is still alive; nothing counted for an idle thread, nor while the learner
starts none (the grader's own threads and XLA's never count). Real submissions through
the child (``trace_support.trace``); the work is a CPU-time amount the learner's thread
spins for itself, so the assertions are lower bounds on CPU time, never on durations."""

from __future__ import annotations

from trace_support import trace

from syncgrade.analysis import UNEXPLAINED_CPU_BOUND_NS, Interval, analyse
from syncgrade.courses import get_exercise
from syncgrade.trace import TimerRead

WORK_NS = 20_000_000

HEAD = """
import resource
import threading
import time
from concurrent.futures import ThreadPoolExecutor

WORK_S = 0.020


def spent():
    # This thread's CPU time, read without a clock the grader records.
    usage = resource.getrusage(resource.RUSAGE_THREAD)
    return usage.ru_utime + usage.ru_stime


def work():
    # CPU time of this thread, however long the machine takes to give it.
    began = spent()
    while spent() - began < WORK_S:
        pass
"""

LOOP = HEAD + """
def synchronized_samples(fn, args, repeats):
    {before}
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        {inside}
        samples.append(time.perf_counter() - start)
    {after}
    return out, samples
"""

# The thread has ended before the stop read.
JOINED = LOOP.format(before="pass", after="pass", inside="""worker = threading.Thread(target=work)
        worker.start()
        worker.join()""")
# The thread starts outside the intervals and is alive, idle, at each stop read.
EXECUTOR = LOOP.format(
    before="pool = ThreadPoolExecutor(1)\n    pool.submit(lambda: None).result()",
    inside="pool.submit(work).result()", after="pool.shutdown()")
IDLE = LOOP.format(before="""checked, done = threading.Event(), threading.Event()

    def helper():
        work()
        checked.set()
        done.wait()
        work()

    thread = threading.Thread(target=helper)
    thread.start()
    checked.wait()""", inside="pass", after="done.set()\n    thread.join()")
NO_THREAD = LOOP.format(before="pass", inside="pass", after="pass")
# The whole timed loop runs on a thread of the learner's: the reader's own CPU time is
# the reading thread's, not another thread's.
TIMED_IN_A_THREAD = HEAD + NO_THREAD.replace("def synchronized_samples(", "def _loop(") + """
def synchronized_samples(fn, args, repeats):
    found = []
    thread = threading.Thread(target=lambda: found.append(_loop(fn, args, repeats)))
    thread.start()
    thread.join()
    return found[0]
"""


def _intervals(source: str) -> tuple[Interval, ...]:
    frame = trace(get_exercise("exercise-1"), source, timeout=120)["main"]
    intervals = analyse(frame.events).intervals
    assert intervals
    return intervals


def test_a_thread_joined_inside_the_interval_counts_all_its_cpu_time() -> None:
    for interval in _intervals(JOINED):
        assert interval.thread_cpu_ns >= WORK_NS
        assert interval.threads_did_most
        assert (interval.unexplained_cpu_ns or 0) >= WORK_NS
        # Its figure is read from two clocks: the reader's and that thread's (the threads
        # of the samples before began and ended before the start read).
        assert interval.cpu_clocks == 2


def test_an_executor_thread_alive_at_the_stop_read_is_read_through_its_clock() -> None:
    for interval in _intervals(EXECUTOR):
        assert interval.thread_cpu_ns >= WORK_NS
        assert interval.threads_did_most
        assert interval.cpu_clocks == 2  # the reader's clock and the executor thread's


def test_a_thread_idle_during_the_intervals_counts_nothing_there() -> None:
    intervals = _intervals(IDLE)
    # Its 20 ms before the loop and after it are outside; blocked, it spends nothing.
    assert all(i.thread_cpu_ns < UNEXPLAINED_CPU_BOUND_NS for i in intervals)
    assert any(i.start.others is not None for i in intervals)  # it was counted, as 0


def test_without_a_learner_thread_no_read_carries_a_thread_figure() -> None:
    # The grader's worker and stall watch, and XLA's threads, run all the while.
    frame = trace(get_exercise("exercise-1"), NO_THREAD, timeout=120)["main"]
    reads = [e for e in frame.events if isinstance(e, TimerRead)]
    assert reads and all(r.others is None and r.others_born is None for r in reads)
    assert all(i.thread_cpu_ns == 0 and i.cpu_clocks == 1
               for i in analyse(frame.events).intervals)


def test_a_loop_timed_on_a_learner_thread_is_not_blamed_for_its_own_thread() -> None:
    intervals = _intervals(TIMED_IN_A_THREAD)
    assert all(i.start.others is not None for i in intervals)  # counted: a learner thread
    assert all(i.thread_cpu_ns < UNEXPLAINED_CPU_BOUND_NS for i in intervals)
