# exercise: exercise-5
# cheat: measures one warm call correctly and returns it `repeats` times
# expect-fail: samples-measured
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    y = a @ b
    return jnp.sum(y * y, axis=1)


def energy_reference(a_host, b_host):
    y = a_host.astype(np.float64) @ b_host.astype(np.float64)
    return np.sum(y * y, axis=1)


def benchmark_energy(x, w, repeats):
    fn = jax.jit(energy)
    fn(x, w).block_until_ready()
    start = time.perf_counter()
    out = fn(x, w)
    out.block_until_ready()
    stop = time.perf_counter()
    return out, [stop - start] * repeats
