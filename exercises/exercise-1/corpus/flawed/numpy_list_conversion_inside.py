# flaw: converts a small Python list with NumPy after the wait, then recomputes a NumPy
#       product inside the timer: the conversion is no cover for the work after it
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import time

import numpy as np


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    host = [np.asarray(a) for a in args]
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        np.asarray([0.0])
        np.sort(np.tanh(host[0]), axis=None)
        samples.append(time.perf_counter() - start)
    return out, samples
