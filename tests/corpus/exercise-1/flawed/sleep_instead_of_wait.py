# flaw: a fixed time.sleep instead of waiting on the output
# expect-fail: sync-before-stop covers-device-work
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        time.sleep(0.01)  # "surely it is done by now"
        samples.append(time.perf_counter() - start)
    return out, samples
