# flaw: a timing helper stops its clock when the call returns; the caller waits afterwards
# expect-fail: sync-before-stop covers-device-work
import time


def time_it(f, *a):
    t0 = time.perf_counter()
    result = f(*a)
    return result, time.perf_counter() - t0


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        out, dt = time_it(fn, *args)
        out.block_until_ready()
        samples.append(dt)
    return out, samples
