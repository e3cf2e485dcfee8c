# flaw: no warm-up; the first sample compiles compiled_predict for the new shape
#       (inputs are waited on directly; the check runs on the last timed result)
# expect-fail: warmup-excluded
import time

import jax
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    jax.block_until_ready((larger, w))

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    np.testing.assert_allclose(np.asarray(out), np.tanh(larger_host @ w_host),
                               atol=2e-5, rtol=2e-5)
    return larger_host, out, samples
