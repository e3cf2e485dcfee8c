# flaw: only the first input is placed per sample; the others stay resident from the warm-up
# expect-fail: placement-included
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    first, *rest = host_args
    resident = [jax.device_put(a, device) for a in rest]
    jax.block_until_ready(fn(jax.device_put(first, device), *resident))
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter()
        x = jax.device_put(first, device)
        host = np.asarray(fn(x, *resident))
        samples.append(time.perf_counter() - start)
    return host, samples
