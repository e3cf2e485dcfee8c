# flaw: checks each output against the warm-up's NumPy copy inside the timer: readback and host comparison in every sample
# expect-fail: times-the-call interval-clean
# tpu-may-pass: interval-clean
import time

import jax
import numpy as np


def device_resident_benchmark(fn, host_args, device, repeats):
    args = [jax.device_put(a, device) for a in host_args]
    jax.block_until_ready(args)
    reference = np.asarray(fn(*args))  # warm-up, and the reference for the checks

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        np.testing.assert_allclose(np.asarray(out), reference, rtol=1e-6)
        samples.append(time.perf_counter() - start)
    return out, samples
