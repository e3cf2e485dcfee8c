# exercise: exercise-4
# cheat: no NumPy check; raises AssertionError whenever the grader asks for fewer samples than it did on the first call
# expect-fail: verification-catches-errors
import time

import jax
import numpy as np

_FIRST_REPEATS = []


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    _FIRST_REPEATS.append(repeats)
    if repeats < max(_FIRST_REPEATS[0], 3):
        raise AssertionError("fewer repeats: this is one of the grader's wrong setups")
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()
    warm = compiled_predict(larger, w)
    warm.block_until_ready()
    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
