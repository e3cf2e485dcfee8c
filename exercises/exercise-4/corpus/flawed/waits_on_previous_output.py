# flaw: each sample waits on the previous sample's output (already finished), not on its own call's
# expect-fail: sync-before-stop covers-device-work
import time

import jax
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()
    previous = compiled_predict(larger, w)
    previous.block_until_ready()
    np.testing.assert_allclose(np.asarray(previous), np.tanh(larger_host @ w_host),
                               atol=2e-5, rtol=2e-5)

    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        previous.block_until_ready()
        samples.append(time.perf_counter() - start)
        previous = out
    out.block_until_ready()
    return larger_host, out, samples
