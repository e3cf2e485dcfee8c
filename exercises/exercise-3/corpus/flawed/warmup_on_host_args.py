# flaw: the warm-up call takes the NumPy arrays, the timed calls the arrays placed on
#       `device`; jit specializes on placement too (committed device arrays), so the first
#       timed call compiles again
# expect-fail: warmup-excluded
import time

import jax
import numpy as np


def device_resident_benchmark(fn, host_args, device, repeats):
    jax.block_until_ready(fn(*host_args))  # warm-up on the host arrays
    args = [jax.device_put(a, device) for a in host_args]
    jax.block_until_ready(args)
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
