# style: a context-manager timer; energy and its reference written with einsum
# expect: pass
import time

import jax
import jax.numpy as jnp
import numpy as np


class Stopwatch:
    def __enter__(self):
        self.start = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.seconds = time.monotonic() - self.start
        return False


def energy(a, b):
    y = a @ b
    return jnp.einsum("rf,rf->r", y, y)


def energy_reference(a_host, b_host):
    y = a_host @ b_host
    return np.einsum("rf,rf->r", y, y)


def benchmark_energy(x, w, repeats):
    jitted_energy = jax.jit(energy)
    jitted_energy(x, w).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        with Stopwatch() as sw:
            out = jitted_energy(x, w)
            out.block_until_ready()
        samples.append(sw.seconds)
    return out, samples
