# flaw: the sample waits for the output, but the readback to NumPy happens after the stop
# expect-fail: readback-included
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    jax.block_until_ready(fn(*[jax.device_put(a, device) for a in host_args]))
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]
        out = fn(*args).block_until_ready()
        stop = time.perf_counter()
        host = np.asarray(out)
        samples.append(stop - start)
    return host, samples
