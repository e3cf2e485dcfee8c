# flaw: nothing waits for the placement or for the warm-up before the first sample
# expect-fail: inputs-ready warmup-excluded
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    fn(*args)  # warm-up dispatched (and compiled), but never waited on

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
