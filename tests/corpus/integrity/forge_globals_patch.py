# exercise: exercise-1
# cheat: rewrites a helper in the hooks' module through jax.device_put.__globals__ so np.asarray(0.0) "waits" on the output
# expect: tampered
import time

import jax
import numpy as np

LATEST = []


def _fake_leaves(obj):
    yield from LATEST  # claims the learner's output was converted (it was not touched)


jax.device_put.__globals__["_array_leaves"] = _fake_leaves


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        LATEST[:] = [out]
        np.asarray(0.0)
        samples.append(time.perf_counter() - start)
    return out, samples
