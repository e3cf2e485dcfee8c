# flaw: times jax.jit(fn), a new wrapper it compiled itself, instead of the fn it was given
# expect-fail: times-the-call
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    compiled = jax.jit(fn)
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    compiled(*args).block_until_ready()

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
