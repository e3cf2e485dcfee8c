# flaw: a busy Python thread of the learner's runs beside the timed loop the whole
#   time: its CPU time is inside every timed interval
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import sys
import threading
import time

# Threads take turns every 20 µs instead of every 5 ms: the two threads meet inside the
# recorder in every grade instead of now and then.
sys.setswitchinterval(2e-5)


def _background():
    # Busy Python with a clock read now and then, for as long as the process lives: the
    # grader's hooks and its own control steps meet this thread inside the recorder.
    while True:
        for _ in range(3000):
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
