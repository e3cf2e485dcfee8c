# flaw: the warm-up's output is never waited on; the inputs are placed afresh and waited
#       on instead, which proves nothing about the warm-up (a transfer is not ordered
#       after a computation), so its device work can run on into the first sample
# expect-fail: warmup-excluded
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    warm_args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(warm_args)
    fn(*warm_args)  # warm-up: compiles, never waited on
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
