# flaw: the step forgets the + 1, and the samples are made up from a total
# expect-fail: numpy-match samples-measured
import time

import jax


step_donated = jax.jit(lambda x: x * 0.5, donate_argnums=0)


def donated_samples(x_host, repeats):
    step_donated(jax.device_put(x_host)).block_until_ready()
    out = None
    total = 0.0
    for _ in range(repeats):
        x = jax.device_put(x_host)
        x.block_until_ready()
        start = time.perf_counter()
        out = step_donated(x)
        out.block_until_ready()
        total += time.perf_counter() - start
    return out, [total / repeats] * repeats
