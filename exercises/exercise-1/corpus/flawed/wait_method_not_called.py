# flaw: `out.block_until_ready` without parentheses: the method is looked up, never called
# expect-fail: sync-before-stop covers-device-work
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready
        samples.append(time.perf_counter() - start)
    return out, samples
