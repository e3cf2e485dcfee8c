"""Does a call of the spin probe return at dispatch on this backend? (device check)

On a GPU, XLA evaluates a while loop's condition on the host after every iteration when
the trip count is not known at compile time, so the call returns only once the loop has
run: a timer stopped at dispatch then measures the whole probe, and `covers-device-work`
cannot tell it from a waited one. This prints, for the dynamic-count spin and for a spin
whose count is a compile-time constant, the dispatch time and the waited time of one
call, medians of 5.

    python benchmarks/gpu_probe_dispatch.py
"""

from __future__ import annotations

import statistics
import time

import jax
import jax.numpy as jnp


def dynamic(x, n):
    return jax.lax.while_loop(lambda c: c[0] < n,
                              lambda c: (c[0] + 1, jnp.sin(c[1]) * 1.0001), (0, x))[1]


def fixed(steps):
    def spin(x, n):
        del n
        return jax.lax.fori_loop(0, steps, lambda i, v: jnp.sin(v) * 1.0001, x)
    return spin


def measure(fn, x, n):
    fn(x, n).block_until_ready()
    dispatch, waited = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        out = fn(x, n)
        t1 = time.perf_counter()
        out.block_until_ready()
        t2 = time.perf_counter()
        dispatch.append(t1 - t0)
        waited.append(t2 - t0)
    return statistics.median(dispatch), statistics.median(waited)


def main() -> None:
    print("backend", jax.default_backend(), jax.devices()[0].device_kind, jax.__version__)
    x = jnp.ones((4096,), jnp.float32)
    steps = 20_000
    n = jnp.int32(steps)
    for name, fn in (("dynamic while_loop", jax.jit(dynamic)),
                     ("fixed fori_loop", jax.jit(fixed(steps)))):
        d, w = measure(fn, x, n)
        print(f"{name:20s} dispatch {d * 1e3:8.3f} ms   waited {w * 1e3:8.3f} ms   "
              f"ratio {d / w:.3f}")


def chain(k):
    def matmuls(x, m):
        for _ in range(k):
            x = jnp.tanh(x @ m)
        return x
    return matmuls


def main_chain() -> None:
    """An unrolled chain of matrix products: no loop at all, so nothing to sync on."""
    x = jnp.ones((4096, 4096), jnp.float32) * 0.01
    m = jnp.ones((4096, 4096), jnp.float32) * 0.01
    for k in (8, 32):
        d, w = measure(jax.jit(chain(k)), x, m)
        print(f"chain of {k:3d} matmuls  dispatch {d * 1e3:8.3f} ms   waited {w * 1e3:8.3f} ms"
              f"   ratio {d / w:.3f}")


if __name__ == "__main__":
    import sys
    main_chain() if "--chain" in sys.argv else main()
