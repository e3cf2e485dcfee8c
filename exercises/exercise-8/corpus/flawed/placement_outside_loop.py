# flaw: the host inputs are placed once before the loop; no sample contains their placement
# expect-fail: placement-included
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    args = [jax.device_put(a, device) for a in host_args]
    jax.block_until_ready(fn(*args))
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter()
        host = np.asarray(fn(*args))
        samples.append(time.perf_counter() - start)
    return host, samples
