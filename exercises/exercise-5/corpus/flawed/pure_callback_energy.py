# flaw: `energy` is a `jax.pure_callback` to the NumPy reference: the jitted program calls
#       back to the host, so the samples time NumPy on the host, not a compiled computation
# expect-fail: jitted interval-clean
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=1)


def _host_energy(a, b):
    return energy_reference(np.asarray(a), np.asarray(b)).astype(np.float32)


@jax.jit
def energy(a, b):
    shape = jax.ShapeDtypeStruct((a.shape[0],), jnp.float32)
    return jax.pure_callback(_host_energy, shape, a, b)


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
