# flaw: the timer stops right after the call; the readback (the only wait) comes after the stop
# expect-fail: readback-included covers-device-work sync-before-stop
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
        out = fn(*args)
        stop = time.perf_counter()
        host = np.asarray(out)
        samples.append(stop - start)
    return host, samples
