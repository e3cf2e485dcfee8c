# flaw: a weight check (w against w_host) plus a reference from a function it jits itself,
#       jnp.tanh(x @ w). Independent of compiled_predict, so it catches the grader's wrong
#       function, but it runs on the same device: on a device whose arithmetic is slightly
#       off it shares the error, and only a NumPy reference on the host catches that.
# expect-fail: verification-catches-errors
import time

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def my_predict(x, w):
    return jnp.tanh(x @ w)


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()
    warm = compiled_predict(larger, w)
    warm.block_until_ready()

    np.testing.assert_allclose(np.asarray(w), w_host, atol=0, rtol=0)
    reference = my_predict(larger, w)
    np.testing.assert_allclose(np.asarray(warm), np.asarray(reference), atol=2e-5, rtol=2e-5)

    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
