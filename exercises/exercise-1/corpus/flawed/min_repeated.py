# flaw: returns the fastest sample repeated, not the samples
# expect-fail: samples-measured
import time


def synchronized_samples(fn, args, repeats):
    samples, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - t0)
    return out, [min(samples)] * repeats
