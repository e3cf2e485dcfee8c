# style: the warm-up is checked with np.allclose against fn on host copies of the args, and that check is its wait
# expect: pass
import time

import jax
import numpy as np


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    warm = fn(*args)  # compiles
    reference = np.asarray(fn(*[np.asarray(a) for a in args]))  # same fn on host copies
    assert np.allclose(warm, reference), "the placed args give another result"
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    boundary = {"dispatch", "device execution", "output wait"}
    return {"boundary": boundary, "samples": samples}, result
