# flaw: raw perf_counter_ns differences (integers in nanoseconds) are returned as the samples
# expect-fail: sample-count
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    jax.block_until_ready(fn(*[jax.device_put(a, device) for a in host_args]))
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter_ns()
        args = [jax.device_put(a, device) for a in host_args]
        host = np.asarray(fn(*args))
        samples.append(time.perf_counter_ns() - start)
    return host, samples
