# flaw: a second, checking call inside each sample
# expect-fail: times-the-call
"""A second, checking call inside each sample."""
import time

import numpy as np


def sweep_samples(fn, args, settings, repeats):
    outputs, samples = [], []
    for setting in settings:
        fn(*args, setting).block_until_ready()
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            again = fn(*args, setting)
            again.block_until_ready()
            times.append(time.perf_counter() - start)
            assert np.isfinite(np.asarray(out)).all()
        outputs.append(out)
        samples.append(times)
    return outputs, samples
