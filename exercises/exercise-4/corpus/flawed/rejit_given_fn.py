# flaw: times jax.jit(compiled_predict), a wrapper it built, not the compiled_predict it was given
# expect-fail: times-the-call
import time

import jax
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    predict = jax.jit(compiled_predict)
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()
    warm = predict(larger, w)
    warm.block_until_ready()
    np.testing.assert_allclose(np.asarray(warm), np.tanh(larger_host @ w_host),
                               atol=2e-5, rtol=2e-5)

    samples = []
    result = warm
    for _ in range(repeats):
        start = time.perf_counter()
        result = predict(larger, w)
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, result, samples
