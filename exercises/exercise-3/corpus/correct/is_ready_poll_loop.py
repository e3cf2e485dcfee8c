# style: waits for the placement and the warm-up with `block_until_ready`, then polls
#        `out.is_ready()` in a bare loop as each sample's wait
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
            pass
        samples.append(time.perf_counter() - start)
    return out, samples
