# flaw: the warm-up is never waited on; a freshly placed array is waited on instead "to
#       let the device settle", which proves nothing about the warm-up (a transfer is not
#       ordered after a computation)
# expect-fail: warmup-excluded
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    fn(*[jax.device_put(a, device) for a in host_args])  # warm-up, never waited on
    jax.device_put(np.zeros(4, np.float32), device).block_until_ready()
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]
        host = np.asarray(fn(*args))
        samples.append(time.perf_counter() - start)
    return host, samples
