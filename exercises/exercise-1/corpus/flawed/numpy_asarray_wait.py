# flaw: np.asarray(out) as the wait: the interval also copies the output to the host, a phase this measurement does not ask for
# expect-fail: times-the-call
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
