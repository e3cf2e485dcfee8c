# flaw: spins until every sample is at least 40 ms long, measured from its start: host
#   work the sample includes, and every sample reads 40 ms whatever the call took
# expect-fail: interval-clean
# may-fail: sample-duration
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        while time.perf_counter() - start < 0.04:  # a floor, to steady the figures
            pass
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples
