# flaw: jax.clear_caches() between the warm-up and the timed loop ("a clean slate") throws
#   the compiled program away: the first sample compiles again
# expect-fail: warmup-excluded
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = [jax.device_put(a, device) for a in host_args]
    jax.block_until_ready(args)
    fn(*args).block_until_ready()
    jax.clear_caches()
    samples = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - t0)
    return out, samples
