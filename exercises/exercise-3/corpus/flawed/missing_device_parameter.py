# flaw: the signature drops the `device` parameter (places on the default device instead)
# expect-fail: runs
import time

import jax


def device_resident_benchmark(fn, host_args, repeats):
    args = tuple(jax.device_put(a) for a in host_args)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
