# flaw: raises; a typo in the stop variable (NameError on the first sample)
# expect-fail: runs
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        samples.append(stopp - start)  # noqa: F821
    return out, samples
