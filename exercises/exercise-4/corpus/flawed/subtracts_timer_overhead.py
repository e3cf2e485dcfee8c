# flaw: subtracts an estimated timer overhead from every sample, so no sample is a
#       difference the timer really measured (report what you measured, unchanged)
# expect-fail: samples-measured
"""Exercise 4: Check an independent NumPy result first (changed workload; reference solution)."""

import time

_TIMER_OVERHEAD = 2e-5  # the cost of reading the clock, measured once on my laptop

import jax
import jax.numpy as jnp
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    """Benchmark `compiled_predict` on a new `(rows, w_host.shape[0])` input.

    Draw the input with `rng.normal(...)` as float32, place it on `device` and wait, warm
    up (`compiled_predict` is jitted but not compiled for the new shape), check the result
    against `np.tanh(larger_host @ w_host)` with
    `np.testing.assert_allclose(..., atol=2e-5, rtol=2e-5)` (raise on mismatch), then take
    `repeats` synchronized samples.

    Returns:
        (larger_host, result, samples): the NumPy input, the output of the last timed call,
        and a list of `repeats` floats in seconds.
    """
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()

    # Warm up: compiles the new shape, outside the timer.
    warm = compiled_predict(larger, w)
    warm.block_until_ready()

    # Independent check first: NumPy on the host copies; raises AssertionError on mismatch.
    np.testing.assert_allclose(np.asarray(warm), np.tanh(larger_host @ w_host),
                               atol=2e-5, rtol=2e-5)

    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start - _TIMER_OVERHEAD)
    return larger_host, out, samples


if __name__ == "__main__":
    # The lesson's world.
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    cpu = jax.devices("cpu")[0]
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    compiled_predict = jax.jit(lambda x, w: jnp.tanh(x @ w))
    compiled_predict(x, w).block_until_ready()  # compiled for 64 rows only

    larger_host, result, samples = changed_workload(compiled_predict, w_host, w, 96, rng, cpu, 5)
    print("Changed workload:", larger_host.shape, "->", result.shape)
    print("samples (ms):", [f"{s * 1e3:.3f}" for s in samples])
    print(f"first sample / median of the rest: {samples[0] / np.median(samples[1:]):.1f}x")
