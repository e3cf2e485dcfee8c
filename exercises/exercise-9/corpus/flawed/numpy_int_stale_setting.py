# flaw: the settings as NumPy integers, but the timed loop reuses the warm-up loop's last one: every list times the last setting
# expect-fail: times-the-call
import time

import numpy as np


def sweep_samples(fn, args, settings, repeats):
    blocks = np.asarray(settings, dtype=np.int64)
    for block in blocks:
        fn(*args, block).block_until_ready()
    outputs, samples = [], []
    for _ in blocks:
        times = []
        out = None
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, block)
            out.block_until_ready()
            times.append(time.perf_counter() - start)
        outputs.append(out)
        samples.append(times)
    return outputs, samples
