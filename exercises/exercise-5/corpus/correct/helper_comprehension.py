# style: timeit.default_timer in a helper returning (output, seconds); a comprehension of samples
# expect: pass
import timeit

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    products = jnp.matmul(a, b)
    return jnp.sum(products * products, axis=1)


def energy_reference(a_host, b_host):
    return np.sum(np.matmul(a_host, b_host) ** 2, axis=1)


def _timed(fn, *args):
    start = timeit.default_timer()
    out = fn(*args)
    out.block_until_ready()
    return out, timeit.default_timer() - start


def benchmark_energy(x, w, repeats):
    fast = jax.jit(energy)
    fast(x, w).block_until_ready()  # warm-up outside any timed interval
    runs = [_timed(fast, x, w) for _ in range(repeats)]
    return runs[-1][0], [seconds for _, seconds in runs]
