# flaw: stops the timer right after the call, without waiting for the output
# expect-fail: sync-before-stop
import time

import jax


step_donated = jax.jit(lambda x: x * 0.5 + 1.0, donate_argnums=0)


def donated_samples(x_host, repeats):
    step_donated(jax.device_put(x_host)).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        x = jax.device_put(x_host)
        x.block_until_ready()
        start = time.perf_counter()
        out = step_donated(x)
        samples.append(time.perf_counter() - start)
    out.block_until_ready()
    return out, samples
