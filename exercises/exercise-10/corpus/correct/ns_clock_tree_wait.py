# style: perf_counter_ns, a helper that makes each fresh input, and jax.block_until_ready on the output
# expect: pass
import time

import jax
import numpy as np


def step(x):
    return x * 0.5 + 1.0


step_donated = jax.jit(step, donate_argnums=0)


def fresh_input(x_host):
    x = jax.device_put(x_host)
    return jax.block_until_ready(x)


def donated_samples(x_host, repeats):
    jax.block_until_ready(step_donated(fresh_input(x_host)))
    samples = []
    out = None
    for _ in range(repeats):
        x = fresh_input(x_host)
        t0 = time.perf_counter_ns()
        out = jax.block_until_ready(step_donated(x))
        t1 = time.perf_counter_ns()
        samples.append((t1 - t0) / 1e9)
    return out, samples
