# style: the method wait, then a check jit on a 64x larger input called more often than
#   the timed loop, after it
# expect: pass
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=1)


def _scale_check(a, b):
    big = jnp.concatenate([a] * 64, axis=0)
    return jnp.sum((big @ b) ** 2, axis=1)


def benchmark_energy(x, w, repeats):
    fast = jax.jit(energy)
    check = jax.jit(_scale_check)
    fast(x, w).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fast(x, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    for _ in range(repeats + 4):  # checks at scale, outside every timer
        check(x, w).block_until_ready()
    return out, samples
