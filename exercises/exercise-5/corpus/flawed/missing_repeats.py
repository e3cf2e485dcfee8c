# flaw: benchmark_energy has no repeats parameter (always 5 samples); calling it with one raises
# expect-fail: runs
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=1)


def benchmark_energy(x, w):
    fast = jax.jit(energy)
    fast(x, w).block_until_ready()
    samples = []
    out = None
    for _ in range(5):
        start = time.perf_counter()
        out = fast(x, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
