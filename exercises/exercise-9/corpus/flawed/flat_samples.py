# flaw: one flat list of samples for all settings instead of one list per setting
# expect-fail: sample-count
"""One flat list of samples for all settings instead of one list per setting."""
import time


def sweep_samples(fn, args, settings, repeats):
    outputs, samples = [], []
    for setting in settings:
        fn(*args, setting).block_until_ready()
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            out.block_until_ready()
            samples.append(time.perf_counter() - start)
        outputs.append(out)
    return outputs, samples
