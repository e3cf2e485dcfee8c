# style: time.clock_gettime_ns(time.CLOCK_MONOTONIC), converted to seconds
# expect: pass
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()  # warm-up: compiles outside the timer

    samples = []
    out = None
    for _ in range(repeats):
        start = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        out = fn(*args)
        out.block_until_ready()
        samples.append((time.clock_gettime_ns(time.CLOCK_MONOTONIC) - start) / 1e9)
    return out, samples
