# flaw: wrong count; drops the first sample "as a warm-up", returning repeats - 1 samples
# expect-fail: sample-count
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples[1:]
