# flaw: polls `out.is_ready()` with a 20 ms sleep between polls: the output is ready
#       part-way through a sleep, and each sample includes the rest of it (a few-ms
#       call reads as 20 ms)
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import time

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def energy(a, b):
    return jnp.sum(jnp.square(a @ b), axis=1)


def energy_reference(a_host, b_host):
    return np.sum(np.square(a_host @ b_host), axis=1)


def benchmark_energy(x, w, repeats):
    energy(x, w).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = energy(x, w)
        while not out.is_ready():
            time.sleep(0.02)  # polls every 20 ms
        samples.append(time.perf_counter() - start)
    return out, samples
