# style: per-arg jax.device_put in a comprehension, np.asarray(fn(*args)) as the readback
# expect: pass
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
        host = np.asarray(fn(*args))
        samples.append(time.perf_counter() - start)
    return host, samples
