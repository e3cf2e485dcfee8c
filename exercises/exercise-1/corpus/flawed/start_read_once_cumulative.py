# flaw: the start read is taken once, before the loop: sample k times k calls
# expect-fail: times-the-call
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    start = time.perf_counter()
    for _ in range(repeats):
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
