# exercise: exercise-1
# cheat: returns samples of odd types: a bool, a Decimal, a string, a nested list, a numpy int
# expect-fail: sample-count
import decimal
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
    odd = [True, decimal.Decimal("0.001"), "0.001", [[0.001]], np.int64(1)]
    samples[: len(odd)] = odd[: len(samples)]
    return out, samples
