# exercise: exercise-1
# cheat: returns the output packed into a structured NumPy array (fields value and flag)
# expect-fail: numpy-match
import time

import numpy as np


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        samples.append(stop - start)
    packed = np.zeros(out.shape, dtype=[("value", np.float32), ("flag", np.int8)])
    packed["value"] = np.asarray(out)
    return packed, samples
