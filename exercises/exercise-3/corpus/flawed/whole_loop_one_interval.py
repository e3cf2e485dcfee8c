# flaw: one interval around the whole loop, divided evenly into samples
# expect-fail: samples-measured times-the-call
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()

    out = None
    start = time.perf_counter()
    for _ in range(repeats):
        out = fn(*args)
        out.block_until_ready()
    elapsed = time.perf_counter() - start
    return out, [elapsed / repeats for _ in range(repeats)]
