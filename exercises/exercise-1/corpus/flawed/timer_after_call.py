# flaw: the timer starts after the call, so the interval holds only the wait
# expect-fail: times-the-call warmup-excluded
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        out = fn(*args)
        start = time.perf_counter()
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
