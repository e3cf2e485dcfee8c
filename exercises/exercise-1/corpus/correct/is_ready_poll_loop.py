# style: polls `out.is_ready()` in a bare loop until the output is ready, then stops the
#        timer: the poll loop is the wait
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        while not out.is_ready():
            pass
        samples.append(time.perf_counter() - start)
    return out, samples
