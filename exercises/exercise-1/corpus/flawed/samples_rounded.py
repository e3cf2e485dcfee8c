# flaw: each sample rounded to 0.1 ms before it is kept: no longer the measured stop - start
# expect-fail: samples-measured
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        samples.append(round(stop - start, 4))  # tidy figures for the report
    return out, samples
