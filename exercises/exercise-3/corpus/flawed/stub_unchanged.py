# flaw: the stub's naive version; placement (and, in the first sample, compilation)
#       inside every interval
# expect-fail: placement-excluded inputs-ready warmup-excluded
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
