# style: the NumPy reference computed in float64 from the host copies, standard_normal draw
#        (same values as rng.normal), keyword tolerances in the contract's values
# expect: pass
import time

import jax
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.standard_normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()

    warm = compiled_predict(larger, w).block_until_ready()
    reference = np.tanh(larger_host.astype(np.float64) @ w_host.astype(np.float64))
    np.testing.assert_allclose(np.asarray(warm), reference, rtol=2e-5, atol=2e-5)

    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
