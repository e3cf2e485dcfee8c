# flaw: assert_array_almost_equal(decimal=2) accepts any difference under 0.015: too loose
#   to catch a subtly wrong result
# expect-fail: verification-catches-errors
import time

import jax
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()
    warm = compiled_predict(larger, w)
    warm.block_until_ready()
    np.testing.assert_array_almost_equal(np.asarray(warm), np.tanh(larger_host @ w_host), decimal=2)
    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
