# flaw: the whole loop sits in one interval; every sample is the mean of the loop
# expect-fail: samples-measured times-the-call
import time


def synchronized_samples(fn, args, repeats):
    out = None
    start = time.perf_counter()
    for _ in range(repeats):
        out = fn(*args)
        out.block_until_ready()
    total = time.perf_counter() - start
    return out, [total / repeats] * repeats
