# flaw: a new jax.jit(lambda ...) per sample, warmed outside the timer: every sample is warm, but the workload is traced and compiled again between samples
# expect-fail: jitted
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=1)


def benchmark_energy(x, w, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        fast = jax.jit(lambda a, b: energy(a, b))
        fast(x, w).block_until_ready()
        start = time.perf_counter()
        out = fast(x, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
