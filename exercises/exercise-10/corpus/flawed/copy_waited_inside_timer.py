# flaw: the timer starts before the wait for the fresh copy: the sample includes finishing
#   the transfer
# expect-fail: inputs-ready
import time

import jax


def step(x):
    return x * 0.5 + 1.0


step_donated = jax.jit(step, donate_argnums=0)


def donated_samples(x_host, repeats):
    step_donated(jax.device_put(x_host)).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        x = jax.device_put(x_host)
        start = time.perf_counter()
        x.block_until_ready()
        out = step_donated(x)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
