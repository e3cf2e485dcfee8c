# flaw: the signature drops `device` (uses a module-level CPU device instead)
# expect-fail: runs
import time

import jax
import numpy as np

CPU = jax.devices("cpu")[0]


def changed_workload(compiled_predict, w_host, w, rows, rng, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, CPU)
    larger.block_until_ready()
    warm = compiled_predict(larger, w).block_until_ready()
    np.testing.assert_allclose(np.asarray(warm), np.tanh(larger_host @ w_host),
                               atol=2e-5, rtol=2e-5)

    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
