# flaw: makes the fresh input with jnp.copy of a placed base inside the timer: every sample also times the copy
# expect-fail: inputs-ready interval-clean
import time

import jax
import jax.numpy as jnp


step_donated = jax.jit(lambda x: x * 0.5 + 1.0, donate_argnums=0)


def donated_samples(x_host, repeats):
    base = jax.device_put(x_host)
    base.block_until_ready()
    step_donated(jnp.copy(base)).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = step_donated(jnp.copy(base))
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
