# flaw: the output is waited on, but only after the timer has stopped
# expect-fail: sync-before-stop covers-device-work
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        stop = time.perf_counter()
        out.block_until_ready()
        samples.append(stop - start)
    return out, samples
