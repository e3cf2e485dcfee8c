# flaw: the reference is computed through JAX (jnp.tanh on the placed arrays), not NumPy on
#       the host copies. It still catches the grader's wrong compiled_predict, but not the
#       grader's second wrong setup (a device whose arithmetic is slightly off): a reference
#       computed on the same device shares the error and agrees with the wrong result.
# expect-fail: verification-catches-errors
import time

import jax
import jax.numpy as jnp
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()
    warm = compiled_predict(larger, w).block_until_ready()
    np.testing.assert_allclose(np.asarray(warm), np.asarray(jnp.tanh(larger @ w)),
                               atol=2e-5, rtol=2e-5)

    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
