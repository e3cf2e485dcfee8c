# flaw: perf_counter_ns differences returned as integer nanoseconds, never converted
# expect-fail: sample-count
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter_ns()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter_ns() - start)
    return out, samples
