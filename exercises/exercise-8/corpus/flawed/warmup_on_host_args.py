# flaw: the warm-up passes the NumPy arrays straight to fn (uncommitted inputs); the samples
#   place them on the device (committed): another specialization, compiled in sample 1
# expect-fail: warmup-excluded
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    with jax.default_device(device):
        jax.block_until_ready(fn(*host_args))
    samples = []
    host_result = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]
        host_result = np.asarray(fn(*args))
        samples.append(time.perf_counter() - start)
    return host_result, samples
