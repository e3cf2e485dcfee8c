# flaw: the signature has no device parameter (it places on the default device), so the call raises
# expect-fail: runs
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, repeats):
    jax.block_until_ready(fn(*[jax.device_put(a) for a in host_args]))
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a) for a in host_args]
        host = np.asarray(fn(*args))
        samples.append(time.perf_counter() - start)
    return host, samples
