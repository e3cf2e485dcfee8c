# style: the warm-up is not waited on itself, but a second call dispatched after it is:
#        the device runs calls in dispatch order, so that wait covers the warm-up too
# expect: pass
import time

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=1)


def benchmark_energy(x, w, repeats):
    energy(x, w)  # warm-up: compiles
    energy(x, w).block_until_ready()  # dispatched after it, so ready after it
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = energy(x, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
