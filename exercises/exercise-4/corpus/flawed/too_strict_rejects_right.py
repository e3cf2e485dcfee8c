# flaw: an exact comparison (atol=0, rtol=1e-9) rejects the correct float32 result too, so
#       the function raises on the right compiled_predict
# expect-fail: runs verification-catches-errors
import time

import jax
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()

    warm = compiled_predict(larger, w).block_until_ready()
    np.testing.assert_allclose(np.asarray(warm), np.tanh(larger_host @ w_host), atol=0, rtol=1e-9)

    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
