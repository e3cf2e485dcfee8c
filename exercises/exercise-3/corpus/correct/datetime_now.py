# style: datetime.now() readings, samples from (stop - start).total_seconds()
# expect: pass
from datetime import datetime

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()  # warm-up: compiles outside the timer

    samples = []
    out = None
    for _ in range(repeats):
        start = datetime.now()
        out = fn(*args)
        out.block_until_ready()
        samples.append((datetime.now() - start).total_seconds())
    return out, samples
