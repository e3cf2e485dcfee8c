# exercise: exercise-4
# cheat: no NumPy check; raises AssertionError only when compiled_predict's name, qualname or repr looks like a wrong setup
# expect-fail: verification-catches-errors
import time

import jax
import numpy as np


def _looks_wrong(compiled_predict):
    seen = [getattr(compiled_predict, "__name__", ""), getattr(compiled_predict, "__qualname__", ""),
            repr(compiled_predict), repr(getattr(compiled_predict, "__wrapped__", None))]
    wrapped = getattr(compiled_predict, "__wrapped__", None)
    seen += [getattr(wrapped, "__name__", ""), getattr(wrapped, "__qualname__", ""),
             str(getattr(wrapped, "__doc__", ""))]
    return any(word in text.lower() for text in seen for word in ("off", "wrong", "little"))


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    if _looks_wrong(compiled_predict):
        raise AssertionError("this is one of the grader's wrong setups")
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
