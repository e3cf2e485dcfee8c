# style: the warm-up is waited on through a value computed from its output
#        (`float(warm.sum())`): that value is ready only once the warm-up is
# expect: pass
import math
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    warm = fn(*args)
    assert math.isfinite(float(warm.sum())), "the warm-up's output is not finite"

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
