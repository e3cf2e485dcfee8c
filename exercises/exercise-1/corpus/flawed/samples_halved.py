# flaw: each sample is half the measured interval
# expect-fail: samples-measured
import time


def synchronized_samples(fn, args, repeats):
    samples, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append((time.perf_counter() - t0) / 2)
    return out, samples
