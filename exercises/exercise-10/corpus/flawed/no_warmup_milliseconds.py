# flaw: no warm-up (the first sample compiles) and samples in milliseconds
# expect-fail: warmup-excluded sample-count
import time

import jax


step_donated = jax.jit(lambda x: x * 0.5 + 1.0, donate_argnums=0)


def donated_samples(x_host, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        x = jax.device_put(x_host)
        x.block_until_ready()
        start = time.perf_counter()
        out = step_donated(x)
        out.block_until_ready()
        samples.append((time.perf_counter() - start) * 1000)
    return out, samples
