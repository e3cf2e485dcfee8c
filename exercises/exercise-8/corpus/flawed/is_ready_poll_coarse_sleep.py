# flaw: polls `out.is_ready()` with a 20 ms sleep between polls: the output is ready
#       part-way through a sleep, and each sample includes the rest of it (a few-ms
#       call reads as 20 ms)
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
        while not out.is_ready():
            time.sleep(0.02)  # polls every 20 ms
        host = np.asarray(out)
        samples.append(time.perf_counter() - start)
    return host, samples
