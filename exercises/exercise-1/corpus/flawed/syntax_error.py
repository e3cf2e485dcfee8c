# flaw: a syntax error (missing colon after the for statement)
# expect-fail: runs
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats)
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
