# flaw: after the wait, converts a tiny Python list with NumPy and then runs a NumPy
#       reference inside the timer: the conversion covers only itself
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import time

import jax
import numpy as np


def device_resident_benchmark(fn, host_args, device, repeats):
    args = jax.device_put(tuple(host_args), device)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        np.asarray([0.0])
        np.sort(np.tanh(host_args[0]), axis=None)
        samples.append(time.perf_counter() - start)
    return out, samples
