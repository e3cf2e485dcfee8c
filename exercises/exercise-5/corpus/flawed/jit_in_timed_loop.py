# flaw: a new jax.jit(lambda ...) inside every interval: each sample traces and compiles again
# expect-fail: jitted warmup-excluded
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=1)


def benchmark_energy(x, w, repeats):
    jax.jit(energy)(x, w).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = jax.jit(lambda a, b: jnp.sum((a @ b) ** 2, axis=1))(x, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
