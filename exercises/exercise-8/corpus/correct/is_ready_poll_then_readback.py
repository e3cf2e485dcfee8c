# style: each request places the inputs, calls, polls `out.is_ready()` until ready and
#        reads the result back with `np.asarray`
# expect: pass
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
            pass
        host = np.asarray(out)
        samples.append(time.perf_counter() - start)
    return host, samples
