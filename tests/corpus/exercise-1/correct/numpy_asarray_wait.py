# style: np.asarray(out) as the wait (a host conversion blocks until the output is ready)
# expect: pass
import time

import numpy as np


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        np.asarray(out)
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples
