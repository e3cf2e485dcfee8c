# style: one jax.device_put on the whole tuple, np.array readback, perf_counter_ns / 1e9
# expect: pass
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    warm = jax.device_put(tuple(host_args), device)
    fn(*warm).block_until_ready()
    samples = []
    result = None
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        placed = jax.device_put(tuple(host_args), device)
        out = fn(*placed)
        result = np.array(out)
        t1 = time.perf_counter_ns()
        samples.append((t1 - t0) / 1e9)
    return result, samples
