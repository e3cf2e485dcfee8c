# flaw: verifies every timed output against the NumPy reference inside the timer: readback, reference and comparison in each sample
# expect-fail: times-the-call interval-clean
# tpu-may-pass: interval-clean
import time

import jax
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()
    compiled_predict(larger, w).block_until_ready()  # warm-up

    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = compiled_predict(larger, w)
        expected = np.tanh(larger_host @ w_host)
        np.testing.assert_allclose(np.asarray(result), expected, atol=2e-5, rtol=2e-5)
        samples.append(time.perf_counter() - start)
    return larger_host, result, samples
