# flaw: waits with np.asarray(result), a host transfer inside the interval, but the boundary leaves it out
# expect-fail: boundary-matches times-the-call
import time

import jax
import numpy as np


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    jax.block_until_ready(fn(*args))
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        np.asarray(result)
        samples.append(time.perf_counter() - start)
    report = {"boundary": {"dispatch", "device execution", "output wait"}, "samples": samples}
    return report, result
