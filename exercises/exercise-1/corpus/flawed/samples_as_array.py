# flaw: samples returned as a NumPy array instead of a list of floats
# expect-fail: sample-count
import time

import numpy as np


def synchronized_samples(fn, args, repeats):
    samples = np.zeros(repeats)
    out = None
    for i in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples[i] = time.perf_counter() - start
    return out, samples
