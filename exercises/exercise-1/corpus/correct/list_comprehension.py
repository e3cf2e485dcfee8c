# style: a list comprehension over a one-call timer
# expect: pass
import time


def _completed(fn, args):
    t0 = time.perf_counter()
    out = fn(*args).block_until_ready()
    return out, time.perf_counter() - t0


def synchronized_samples(fn, args, repeats):
    runs = [_completed(fn, args) for _ in range(repeats)]
    samples = [seconds for _, seconds in runs]
    return runs[-1][0], samples
