# flaw: warms up on zeros of the right shapes (fine), then returns that warm-up output
#       instead of the last timed output
# expect-fail: numpy-match
import time

import jax
import numpy as np


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    zeros = tuple(jax.device_put(np.zeros_like(a), device) for a in host_args)
    jax.block_until_ready(args)
    warm = fn(*zeros).block_until_ready()

    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return warm, samples
