# style: ahead-of-time jax.jit(energy).lower(x, w).compile(); the Compiled object is timed
# expect: pass
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=1)


def benchmark_energy(x, w, repeats):
    compiled = jax.jit(energy).lower(x, w).compile()  # traced and compiled before any timer
    compiled(x, w).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled(x, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
