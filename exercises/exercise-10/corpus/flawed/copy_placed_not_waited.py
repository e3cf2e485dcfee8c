# flaw: each fresh copy is placed before the timer but never waited for: its transfer
#   may still run inside the sample
# expect-fail: inputs-ready
import time

import jax
import numpy as np


def step(x):
    return x * 0.5 + 1.0


step_donated = jax.jit(step, donate_argnums=0)


def donated_samples(x_host, repeats):
    step_donated(jax.device_put(x_host)).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        x = jax.device_put(x_host)  # placed before the timer, but never waited for
        t0 = time.perf_counter()
        out = step_donated(x)
        out.block_until_ready()
        samples.append(time.perf_counter() - t0)
    return out, samples
