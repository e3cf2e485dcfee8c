# style: a plain `assert np.allclose(...)` (raises AssertionError too), a context-manager timer
# expect: pass
import time

import jax
import numpy as np


class Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self.start


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    jax.block_until_ready(larger)

    warm = np.asarray(compiled_predict(larger, w))
    reference = np.tanh(larger_host @ w_host)
    assert np.allclose(warm, reference, atol=2e-5, rtol=2e-5), "result differs from NumPy"

    samples = []
    out = None
    for _ in range(repeats):
        with Timer() as t:
            out = compiled_predict(larger, w)
            out.block_until_ready()
        samples.append(t.elapsed)
    return larger_host, out, samples
