# flaw: benchmark_energy times the eager (unjitted) energy, warmed and waited, op by op
# expect-fail: jitted times-the-call
import time

import jax.numpy as jnp
import numpy as np


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


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
