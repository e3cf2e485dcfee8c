# flaw: a short time.sleep instead of waiting on the output (shorter than the work)
# expect-fail: sync-before-stop covers-device-work interval-clean
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        time.sleep(0.001)  # "surely it is done by now"
        samples.append(time.perf_counter() - start)
    return out, samples
