# style: the timed loop inside `with jax.disable_jit(False):`, which keeps jit on
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
    fast_energy = jax.jit(energy)
    jax.block_until_ready((x, w))
    fast_energy(x, w).block_until_ready()
    samples = []
    out = None
    with jax.disable_jit(False):  # jit stays on: the compiled function is timed
        for _ in range(repeats):
            start = time.perf_counter()
            out = fast_energy(x, w)
            out.block_until_ready()
            samples.append(time.perf_counter() - start)
    return out, samples
