# flaw: places the host inputs once before the loop, then calls jax.device_put inside the timer on those already-placed arrays: nothing is transferred, so no sample holds a placement
# expect-fail: placement-included
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    placed = [jax.device_put(a, device) for a in host_args]
    jax.block_until_ready(fn(*placed))
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in placed]  # "placement" inside the request
        host = np.asarray(fn(*args))
        samples.append(time.perf_counter() - start)
    return host, samples
