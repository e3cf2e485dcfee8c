# flaw: places the input once and times every call on that one array: the first call consumes it, the second raises
# expect-fail: runs
import time

import jax


step_donated = jax.jit(lambda x: x * 0.5 + 1.0, donate_argnums=0)


def donated_samples(x_host, repeats):
    x = jax.device_put(x_host)
    x.block_until_ready()
    step_donated(jax.device_put(x_host)).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = step_donated(x)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
