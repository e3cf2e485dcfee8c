# flaw: copy_to_host_async() inside the timer only starts the copy; np.asarray runs after
#   the stop read
# expect-fail: sync-before-stop readback-included covers-device-work
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    jax.block_until_ready(fn(*[jax.device_put(a, device) for a in host_args]))
    samples = []
    host_result = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]
        out = fn(*args)
        out.copy_to_host_async()
        samples.append(time.perf_counter() - start)
        host_result = np.asarray(out)
    return host_result, samples
