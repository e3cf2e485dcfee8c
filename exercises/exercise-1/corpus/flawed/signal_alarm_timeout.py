# flaw: a correct loop guarded by a `signal.alarm` timeout, as benchmark scripts often
#       are: the grader runs learner code off Python's main thread, where
#       `signal.signal` raises; the message says so (not "run it to reproduce it", which
#       would not)
# expect-fail: runs
import signal
import time


class BenchmarkTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise BenchmarkTimeout("the benchmark took longer than 30 s")


def synchronized_samples(fn, args, repeats):
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(30)
    try:
        samples = []
        out = None
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args)
            out.block_until_ready()
            samples.append(time.perf_counter() - start)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return out, samples
