# style: one read before the loop and one after each waited call, samples from np.diff of
#   float() reads (the subtraction is hidden from the recorder; values name the intervals)
# expect: pass
import time

import numpy as np


def synchronized_samples(fn, args, repeats):
    reads = [float(time.perf_counter())]
    out = None
    for _ in range(repeats):
        out = fn(*args)
        out.block_until_ready()
        reads.append(float(time.perf_counter()))
    return out, [float(d) for d in np.diff(np.array(reads))]
