# style: polls `out.is_ready()` until the output is ready, sleeping a tenth of a
#        millisecond between polls: the poll loop, sleeps and all, is the wait (the
#        sample can outlast the work by one short sleep)
# expect: pass
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = jax.device_put(tuple(host_args), device)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        while not out.is_ready():
            time.sleep(0.0001)  # yields the CPU; a tenth of a millisecond
        samples.append(time.perf_counter() - start)
    return out, samples
