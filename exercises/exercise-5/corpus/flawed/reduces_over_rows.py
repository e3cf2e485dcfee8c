# flaw: sums over axis 0 (the rows) instead of the output features: shape (features,), not
#   (rows,), and the reference makes the same mistake
# expect-fail: shape numpy-match reference-is-numpy
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=0)


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=0)


def benchmark_energy(x, w, repeats):
    f = jax.jit(energy)
    f(x, w).block_until_ready()
    samples, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f(x, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - t0)
    return out, samples
