# style: perf_counter_ns / 1e9, jax.block_until_ready(out), jnp.square(...).sum(axis=-1)
# expect: pass
from time import perf_counter_ns

import jax
import jax.numpy as jnp


def energy(a, b):
    return jnp.square(a @ b).sum(axis=-1)


def energy_reference(a_host, b_host):
    y = a_host @ b_host
    return (y * y).sum(axis=-1)


def benchmark_energy(x, w, repeats):
    compiled = jax.jit(energy)
    jax.block_until_ready(compiled(x, w))
    samples = []
    for _ in range(repeats):
        t0 = perf_counter_ns()
        out = jax.block_until_ready(compiled(x, w))
        t1 = perf_counter_ns()
        samples.append((t1 - t0) / 1e9)
    return out, samples
