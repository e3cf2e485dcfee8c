# style: polls `out.is_ready()` until the output is ready, sleeping a tenth of a
#        millisecond between polls: the poll loop, sleeps and all, is the wait (the
#        sample can outlast the work by one short sleep)
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        while not out.is_ready():
            time.sleep(0.0001)  # yields the CPU; a tenth of a millisecond
        samples.append(time.perf_counter() - start)
    return out, samples
