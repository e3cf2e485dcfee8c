# flaw: perf_counter_ns differences returned as nanoseconds (integers), not seconds
# expect-fail: sample-count
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter_ns()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter_ns() - start)
    return out, samples
