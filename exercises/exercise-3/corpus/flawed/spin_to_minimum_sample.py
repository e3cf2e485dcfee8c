# flaw: spins until every sample is at least 40 ms long, measured from its start: host
#   work the sample includes, and every sample reads 40 ms whatever the call took
# expect-fail: interval-clean
# may-fail: sample-duration
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        while time.perf_counter() - start < 0.04:  # a floor, to steady the figures
            pass
        samples.append(time.perf_counter() - start)
    return out, samples
