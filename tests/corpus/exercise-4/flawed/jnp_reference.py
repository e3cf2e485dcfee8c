# flaw: the reference is computed through JAX (jnp.tanh on the placed arrays), not NumPy on
#       the host. NOT detected by exercise-4's checks: the JAX reference is still independent
#       of compiled_predict, so it catches the grader's wrong function; no exercise-4 check
#       looks at which library the reference uses (that is exercise-5's reference-is-numpy).
# expect: pass
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
