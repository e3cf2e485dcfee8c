# flaw: wrong result; returns the first argument instead of the last output
# expect-fail: numpy-match
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return args[0], samples
