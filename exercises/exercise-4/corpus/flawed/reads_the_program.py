# flaw: reads the program instead of checking its result: jax.make_jaxpr must show a
#       dot_general and a tanh, the lowered text (.lower(...).as_text()) no stray scale
#       constant such as 1.001, and w must equal w_host. The grader's wrong function is the same program
#       with other data, and its wrong device runs the right program: neither is caught.
# expect-fail: verification-catches-errors
import re
import time

import jax
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()
    warm = compiled_predict(larger, w)
    warm.block_until_ready()

    jaxpr = str(jax.make_jaxpr(compiled_predict)(larger, w))
    assert "dot_general" in jaxpr and "tanh" in jaxpr, "compiled_predict is not tanh(x @ w)"
    text = compiled_predict.lower(larger, w).as_text()
    scales = re.findall(r"dense<(1\.00[1-9]\d*e\+00)>", text)  # a stray 1.001-ish scale
    assert not scales, f"compiled_predict scales its result by {scales}"
    np.testing.assert_array_equal(np.asarray(w), w_host)

    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
