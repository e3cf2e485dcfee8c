# flaw: the host result is cast to float16 "to halve its size", so it no longer matches
# expect-fail: numpy-match
# tpu-may-pass: numpy-match
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
    return host.astype(np.float16), samples
