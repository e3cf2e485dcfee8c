# flaw: the result is returned as a float16 host copy "to keep the report small"
# expect-fail: numpy-match
# tpu-may-pass: numpy-match
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
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    report = {"boundary": {"dispatch", "device execution", "output wait"}, "samples": samples}
    return report, np.asarray(result).astype(np.float16)
