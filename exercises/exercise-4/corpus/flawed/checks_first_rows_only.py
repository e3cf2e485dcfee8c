# flaw: the NumPy check compares only the first five rows ("to keep the check cheap"): a
#   result that is wrong further down passes it
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
    head = 5
    np.testing.assert_allclose(np.asarray(warm)[:head], np.tanh(larger_host[:head] @ w_host),
                               atol=2e-5, rtol=2e-5)
    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
