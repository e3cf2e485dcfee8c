# flaw: the weights are placed once before the timer and re-put in one device_put with the host x inside it: only x is placed in the sample
# expect-fail: placement-included
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    x_host, w_host = host_args
    w = jax.device_put(w_host, device)
    jax.block_until_ready(fn(*jax.device_put((x_host, w), device)))
    samples = []
    host_result = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = jax.device_put((x_host, w), device)
        host_result = np.asarray(fn(*args))
        samples.append(time.perf_counter() - start)
    return host_result, samples
