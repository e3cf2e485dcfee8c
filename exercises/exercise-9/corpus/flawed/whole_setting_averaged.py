# flaw: times all repeats of a setting in one interval and reports the average
# expect-fail: samples-measured times-the-call
"""Times all repeats of a setting in one interval and reports the average."""
import time


def sweep_samples(fn, args, settings, repeats):
    outputs, samples = [], []
    for setting in settings:
        fn(*args, setting).block_until_ready()
        start = time.perf_counter()
        for _ in range(repeats):
            out = fn(*args, setting)
        out.block_until_ready()
        average = (time.perf_counter() - start) / repeats
        outputs.append(out)
        samples.append([average] * repeats)
    return outputs, samples
