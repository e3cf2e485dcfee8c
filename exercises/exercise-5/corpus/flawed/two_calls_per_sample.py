# flaw: two calls per sample: keeps one call's output and waits on another
# expect-fail: times-the-call
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=1)


def benchmark_energy(x, w, repeats):
    fast_energy = jax.jit(energy)
    jax.block_until_ready((x, w))
    fast_energy(x, w).block_until_ready()
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fast_energy(x, w)
        fast_energy(x, w).block_until_ready()
        samples.append(time.perf_counter() - start)
    return result, samples
