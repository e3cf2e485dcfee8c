# style: the method wait, then an untimed call of the same jit on a 64x larger input after
#   the samples
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
    fast = jax.jit(energy)
    fast(x, w).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fast(x, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    larger = jnp.concatenate([x] * 64, axis=0)  # a check at scale, outside every timer
    fast(larger, w).block_until_ready()
    return out, samples
