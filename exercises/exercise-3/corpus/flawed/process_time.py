# flaw: time.process_time counts CPU time of the process, not the time spent waiting
# expect-fail: samples-measured
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()  # warm-up: compiles outside the timer

    samples = []
    out = None
    for _ in range(repeats):
        start = time.process_time()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.process_time() - start)
    return out, samples
