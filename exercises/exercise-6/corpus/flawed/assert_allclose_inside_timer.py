# flaw: checks each output against the warm-up's NumPy copy inside the timer: readback and host comparison in every sample, and the warm boundary it declares leaves that transfer out
# expect-fail: times-the-call boundary-matches interval-clean
# tpu-may-pass: interval-clean
import time

import jax
import numpy as np


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    expected = np.asarray(fn(*args))  # warm-up; its output is the reference
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        np.testing.assert_allclose(np.asarray(result), expected)
        samples.append(time.perf_counter() - start)
    boundary = {"dispatch", "device execution", "output wait"}
    return {"boundary": boundary, "samples": samples}, result
