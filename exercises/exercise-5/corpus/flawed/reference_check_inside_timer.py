# flaw: compares every timed output with energy_reference inside the timer: readback, NumPy reference and assert_allclose in each sample
# expect-fail: times-the-call interval-clean
# tpu-may-pass: interval-clean
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


def energy_reference(a_host, b_host):
    return np.sum((a_host @ b_host) ** 2, axis=1)


def benchmark_energy(x, w, repeats):
    x_host, w_host = np.asarray(x), np.asarray(w)
    fast_energy = jax.jit(energy)
    fast_energy(x, w).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fast_energy(x, w)
        np.testing.assert_allclose(np.asarray(out), energy_reference(x_host, w_host), rtol=5e-2)
        samples.append(time.perf_counter() - start)
    return out, samples
