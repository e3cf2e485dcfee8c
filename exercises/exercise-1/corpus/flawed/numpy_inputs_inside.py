# flaw: NumPy copies of the arguments are passed to fn inside the interval
#       (an implicit host-to-device transfer on every call)
# expect-fail: placement-excluded
import time

import numpy as np


def synchronized_samples(fn, args, repeats):
    host_args = [np.asarray(a) for a in args]
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*host_args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
