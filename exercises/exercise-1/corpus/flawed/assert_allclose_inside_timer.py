# flaw: checks every output against a NumPy copy of the first one inside the timer: readback and host work in each sample
# expect-fail: times-the-call interval-clean
# tpu-may-pass: interval-clean
import time

import numpy as np


def synchronized_samples(fn, args, repeats):
    expected = np.asarray(fn(*args))  # reference output, taken before timing
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        np.testing.assert_allclose(np.asarray(out), expected)
        samples.append(time.perf_counter() - start)
    return out, samples
