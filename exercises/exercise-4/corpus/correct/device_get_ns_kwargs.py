# style: warm-up waited by jax.device_get, keyword arguments to assert_allclose with err_msg,
#        perf_counter_ns converted to seconds
# expect: pass
import time

import jax
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    k = w_host.shape[0]
    larger_host = rng.normal(size=(rows, k)).astype(np.float32)
    larger = jax.device_put(larger_host, device)

    got = jax.device_get(compiled_predict(larger, w))  # warm-up; waits and copies to host
    expected = np.tanh(larger_host @ w_host)
    np.testing.assert_allclose(actual=got, desired=expected, atol=2e-5, rtol=2e-5,
                               err_msg="compiled_predict disagrees with NumPy")

    samples = []
    result = None
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        result = compiled_predict(larger, w)
        result.block_until_ready()
        samples.append((time.perf_counter_ns() - t0) / 1e9)
    return larger_host, result, samples
