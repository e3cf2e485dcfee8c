# flaw: waits on the previous call's output, not on the output of the call being timed
# expect-fail: sync-before-stop covers-device-work
import time


def synchronized_samples(fn, args, repeats):
    previous = fn(*args)
    previous.block_until_ready()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        previous.block_until_ready()
        samples.append(time.perf_counter() - start)
        previous = out
    return previous, samples
