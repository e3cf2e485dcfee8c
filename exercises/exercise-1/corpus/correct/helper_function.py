# style: a helper function that times one completed call
# expect: pass
import time


def time_one(fn, args):
    start = time.perf_counter()
    out = fn(*args)
    out.block_until_ready()
    return out, time.perf_counter() - start


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        out, seconds = time_one(fn, args)
        samples.append(seconds)
    return out, samples
