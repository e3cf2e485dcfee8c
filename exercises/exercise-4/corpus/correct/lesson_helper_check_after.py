# style: the lesson's shape: a synchronized_samples helper, jax.block_until_ready on a tuple,
#        and the NumPy check on the last timed result after sampling, before the timings are returned
# expect: pass
import time

import jax
import numpy as np


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        jax.block_until_ready(out)
        samples.append(time.perf_counter() - start)
    return out, samples


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    jax.block_until_ready((larger, w))
    compiled_predict(larger, w).block_until_ready()
    larger_result, larger_times = synchronized_samples(compiled_predict, (larger, w), repeats)
    np.testing.assert_allclose(np.asarray(larger_result), np.tanh(larger_host @ w_host),
                               atol=2e-5, rtol=2e-5)
    return larger_host, larger_result, larger_times
