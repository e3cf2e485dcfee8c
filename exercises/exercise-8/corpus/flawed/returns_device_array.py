# flaw: the readback happens inside the timer, but it returns the device jax.Array instead of the NumPy result the caller receives
# expect-fail: numpy-match
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    jax.block_until_ready(fn(*[jax.device_put(a, device) for a in host_args]))
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]
        out = fn(*args)
        np.asarray(out)  # bring it to the host
        samples.append(time.perf_counter() - start)
    return out, samples
