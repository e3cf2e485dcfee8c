# flaw: asks `out.is_ready()` once and stops the timer whatever it said: a single poll
#       waits for nothing
# expect-fail: sync-before-stop covers-device-work
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    ready = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        ready.append(out.is_ready())
        samples.append(time.perf_counter() - start)
    return out, samples
