# style: the warm-up is checked with np.allclose against the result on the NumPy inputs, and that check is its wait
# expect: pass
import time

import jax
import numpy as np


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    warm = fn(*args)  # warm-up: compiles for these shapes
    ref = np.asarray(fn(*host_args))  # the result on the NumPy inputs, as a reference
    assert np.allclose(warm, ref), "placed inputs give another result"

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
