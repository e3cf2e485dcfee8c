# style: places each fresh copy with jnp.array and waits for it before the timer
# expect: pass
import time

import jax
import jax.numpy as jnp
import numpy as np


def step(x):
    return x * 0.5 + 1.0


step_donated = jax.jit(step, donate_argnums=0)


def donated_samples(x_host, repeats):
    step_donated(jnp.array(x_host)).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        x = jnp.array(x_host)
        x.block_until_ready()
        t0 = time.perf_counter()
        out = step_donated(x)
        out.block_until_ready()
        samples.append(time.perf_counter() - t0)
    return out, samples
