# flaw: every other sample runs NumPy work inside the timer, then an untimed call of
#   the same jit on a 64x larger input after the samples (the grader's own timing must
#   be of the call the samples hold)
# expect-fail: interval-clean sample-duration
import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    """The row-wise sum of squares of `a @ b`, computed with `jax.numpy`.

    For `a` of shape `(rows, k)` and `b` of shape `(k, features)`, returns an array of
    shape `(rows,)`.
    """
    # Square first, then reduce the output-feature axis only.
    return jnp.sum((a @ b) ** 2, axis=1)


def energy_reference(a_host, b_host):
    """The same quantity as `energy`, computed with NumPy only, on the host.

    Returns a NumPy array of shape `(rows,)`.
    """
    return np.sum((a_host @ b_host) ** 2, axis=1)


def benchmark_energy(x, w, repeats):
    """Jit `energy`, warm it up, then time `repeats` completed calls on placed `x`, `w`.

    Returns:
        (last_output, samples): the output of the last timed call, and a list of
        `repeats` floats, each one call in seconds, from just before the call until that
        call's output is ready.
    """
    fast_energy = jax.jit(energy)  # one compiled function, reused by every sample
    jax.block_until_ready((x, w))
    fast_energy(x, w).block_until_ready()  # warm-up: trace and compile outside the timer
    samples = []
    out = None
    for i in range(repeats):
        start = time.perf_counter()
        out = fast_energy(x, w)
        out.block_until_ready()  # wait for this call's output before stopping
        if i % 2:
            host_work()
        samples.append(time.perf_counter() - start)
    larger = jnp.concatenate([x] * 64, axis=0)  # a check at scale, outside every timer
    fast_energy(larger, w).block_until_ready()
    return out, samples


_RNG = np.random.default_rng(1)
_A = _RNG.normal(size=(1024, 768)).astype(np.float32)


def host_work():
    """NumPy work on the host, many times over (about half a second of one core: NumPy's
    elementwise tanh is single-threaded, so many cores do not shorten it)."""
    for _ in range(1600):
        np.tanh(_A)
