# flaw: checks the pieces, not the result: the device weights against w_host (exactly) and
#       the result's shape and finiteness. The grader's wrong setups use the right weights,
#       so neither wrong one is caught.
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

    # "Check the inputs": the device weights must be exactly the host weights.
    np.testing.assert_array_equal(np.asarray(w), w_host)
    assert warm.shape == (rows, w_host.shape[1])
    assert np.all(np.isfinite(np.asarray(warm)))

    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
