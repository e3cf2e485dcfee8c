# flaw: `energy` prints with `jax.debug.print` from inside the compiled program: every
#       timed call stops to run Python on the host
# expect-fail: jitted interval-clean
import time

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def energy(a, b):
    e = jnp.sum((a @ b) ** 2, axis=1)
    jax.debug.print("energy computed")
    return e


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=1)


def benchmark_energy(x, w, repeats):
    energy(x, w).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = energy(x, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
