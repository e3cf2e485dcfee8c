# exercise: exercise-6
# cheat: times the real arguments but returns fn applied to the lesson's seed-0 data
# expect-fail: numpy-match
import time

import jax
import numpy as np


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    jax.block_until_ready(fn(*args))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    # The right function on the wrong data: every value is plausible, none is the answer.
    rng = np.random.default_rng(0)
    stub = [jax.device_put(rng.normal(size=a.shape).astype(np.float32)) for a in args]
    result = fn(*stub)
    boundary = {"dispatch", "device execution", "output wait"}
    return {"boundary": boundary, "samples": samples}, result
