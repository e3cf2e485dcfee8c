# flaw: returns the last output only, not one per setting
# expect-fail: numpy-match
"""Returns the last output only, not one per setting."""
import time


def sweep_samples(fn, args, settings, repeats):
    samples = []
    for setting in settings:
        fn(*args, setting).block_until_ready()
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            out.block_until_ready()
            times.append(time.perf_counter() - start)
        samples.append(times)
    return out, samples
