# flaw: copies x and w to NumPy for the check, then warms up and times the jitted energy on those host copies: every sample places its inputs
# expect-fail: placement-excluded
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=1)


def benchmark_energy(x, w, repeats):
    x_np, w_np = np.asarray(x), np.asarray(w)
    jitted = jax.jit(energy)
    jitted(x_np, w_np).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = jitted(x_np, w_np)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
