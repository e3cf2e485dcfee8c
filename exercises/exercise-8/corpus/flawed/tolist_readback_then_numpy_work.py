# flaw: reads the result back with `np.array(out.tolist())`, then recomputes a NumPy
#       reference before the stop read: the readback covers only itself
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    jax.block_until_ready(fn(*jax.device_put(tuple(host_args), device)))
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = jax.device_put(tuple(host_args), device)
        out = fn(*args)
        host = np.array(out.tolist(), dtype=np.float32)
        np.sort(np.tanh(host_args[0]), axis=None)
        samples.append(time.perf_counter() - start)
    return host, samples
