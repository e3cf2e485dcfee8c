# flaw: warmed up once, but the inputs are placed again inside every interval
# expect-fail: placement-excluded inputs-ready
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    warm_args = [jax.device_put(a, device) for a in host_args]
    fn(*warm_args).block_until_ready()

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
