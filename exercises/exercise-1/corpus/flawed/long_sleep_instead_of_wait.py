# flaw: a long time.sleep instead of a wait: the samples cover the work, but only by luck
# expect-fail: sync-before-stop covers-device-work interval-clean
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        time.sleep(0.3)  # longer than the work, so nothing is missed, but nothing is proven
        samples.append(time.perf_counter() - start)
    return out, samples
