# flaw: pulls args to NumPy once and sweeps (warm-up and samples) on those host copies: every sample places its inputs
# expect-fail: placement-excluded
import time

import numpy as np


def sweep_samples(fn, args, settings, repeats):
    host_args = [np.asarray(a) for a in args]
    for setting in settings:
        fn(*host_args, setting).block_until_ready()
    outputs, samples = [], []
    for setting in settings:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*host_args, setting)
            out.block_until_ready()
            times.append(time.perf_counter() - start)
        outputs.append(out)
        samples.append(times)
    return outputs, samples
