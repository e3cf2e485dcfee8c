# flaw: energy_reference reuses the JAX energy function, so it is not independent
# expect-fail: reference-is-numpy
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


def energy_reference(a_host, b_host):
    result = energy(a_host, b_host)
    return np.asarray(result)


def benchmark_energy(x, w, repeats):
    fast = jax.jit(energy)
    fast(x, w).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fast(x, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
