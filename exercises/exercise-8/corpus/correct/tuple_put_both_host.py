# style: one device_put of the whole host tuple inside the timer places every input
# expect: pass
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    jax.block_until_ready(fn(*jax.device_put(tuple(host_args), device)))
    samples = []
    host_result = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = jax.device_put(tuple(host_args), device)
        host_result = np.asarray(fn(*args))
        samples.append(time.perf_counter() - start)
    return host_result, samples
