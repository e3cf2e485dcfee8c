# flaw: each sample rounded to 0.1 ms before it is kept: no longer the measured stop - start
# expect-fail: samples-measured
"""Exercise 1: Time a completed result."""

import time

import jax
import jax.numpy as jnp
import numpy as np


def synchronized_samples(fn, args, repeats):
    """Time `repeats` calls of `fn(*args)`, each until its output is ready.

    `fn` is compiled and warmed up; `args` are placed on the device and ready.

    Returns:
        (last_output, samples): the output of the last call, and a list of `repeats`
        floats, each the duration of one call in seconds, from just before the call
        until that call's output is ready.
    """
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()  # wait for *this* call's output before stopping
        stop = time.perf_counter()
        samples.append(round(stop - start, 4))
    return out, samples


if __name__ == "__main__":
    # The lesson's world.
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    cpu = jax.devices("cpu")[0]
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    compiled_predict = jax.jit(lambda x, w: jnp.tanh(x @ w))
    reference = np.tanh(x_host @ w_host)

    # Warm up and wait, so the samples measure warm execution only.
    jax.block_until_ready((x, w))
    compiled_predict(x, w).block_until_ready()

    result, samples = synchronized_samples(compiled_predict, (x, w), 5)
    np.testing.assert_allclose(np.asarray(result), reference, atol=2e-5, rtol=2e-5)
    print("predict samples (s):", [f"{s:.6f}" for s in samples])
    print(f"predict median:      {np.median(samples) * 1e3:.3f} ms")

    # A deliberately heavy workload: a handful of large matrix products.
    big_host = rng.normal(size=(1024, 1024)).astype(np.float32)
    big = jax.device_put(big_host, cpu)
    heavy = jax.jit(lambda a: jnp.tanh(a @ a @ a @ a))
    big.block_until_ready()
    heavy(big).block_until_ready()
    _, heavy_samples = synchronized_samples(heavy, (big,), 5)
    print(f"heavy median:        {np.median(heavy_samples) * 1e3:.3f} ms")
    print("If the heavy median is a fraction of a millisecond, the timer stops at dispatch.")
