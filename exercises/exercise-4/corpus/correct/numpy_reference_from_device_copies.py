# style: a NumPy reference computed on the host from the placed arrays read back
#        (np.asarray(larger), np.asarray(w)): exact copies of larger_host and w_host, so
#        it is as independent of the device's arithmetic and of compiled_predict as the
#        reference from the host copies (the grader's wrong setups never change the data)
# expect: pass
import time

import jax
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()

    warm = compiled_predict(larger, w).block_until_ready()
    reference = np.tanh(np.asarray(larger) @ np.asarray(w))
    np.testing.assert_allclose(np.asarray(warm), reference, atol=2e-5, rtol=2e-5)

    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
