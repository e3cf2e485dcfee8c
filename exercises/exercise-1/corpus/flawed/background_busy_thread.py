# flaw: a busy Python thread of the learner's runs beside the timed loop the whole
#   time: its CPU time is inside every timed interval
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import threading
import time

# Python's own switch interval (5 ms): the busy thread holds the interpreter for up to
# that long while the timing thread waits for it, so each sample holds milliseconds of
# the thread's CPU time. (With a 20 us interval the timing thread switched so often that
# its bound grew with the switches and one list failed narrowly under load; whether two
# threads meet inside the recorder is tests/child/test_core_lock.py's.)


def _background():
    # Busy Python with a clock read now and then (every few milliseconds), for as long as
    # the process lives. Every clock read is an event for the grader: a read every
    # 3,000 turns (tens of thousands a second on an idle machine) filled the grader's
    # 32 MiB trace cap in some grades and not in others, a verdict ("runs") that
    # followed the machine's speed, not this file's flaw.
    while True:
        for _ in range(100_000):
            pass
        time.perf_counter()


threading.Thread(target=_background, daemon=True).start()


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
