# flaw: samples in milliseconds, rounded to three decimals
# expect-fail: sample-count
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(round((time.perf_counter() - start) * 1000, 3))
    return out, samples
