# style: a 5 ms threading.Event().wait(timeout) before each sample's start read,
#   outside the timed interval
# expect: pass
import threading
import time

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
        threading.Event().wait(0.005)  # outside the interval
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
