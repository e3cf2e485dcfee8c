# style: a correct loop while a background thread of the learner's reads clocks busily
#   between samples and between the grader's calls, paused while each sample is timed
#   (the core once crashed on such a thread: "generator already executing")
# expect: pass
import sys
import threading
import time

# Threads take turns every 20 µs instead of every 5 ms: the two threads meet inside the
# recorder in every grade instead of now and then.
sys.setswitchinterval(2e-5)
_busy = threading.Event()
_busy.set()


def _background():
    # Busy Python with a clock read now and then, for as long as the process lives,
    # except while a sample is timed: the grader's hooks, its own control steps and the
    # learner's clock reads meet this thread inside the recorder.
    while True:
        _busy.wait()
        for _ in range(3000):
            pass
        time.perf_counter()


threading.Thread(target=_background, daemon=True).start()


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        _busy.clear()  # the thread finishes its round, then waits: its CPU stays out
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
        _busy.set()
    return out, samples
