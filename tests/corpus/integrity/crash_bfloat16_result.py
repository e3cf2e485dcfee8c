# exercise: exercise-1
# cheat: returns the output converted to bfloat16 (a dtype NumPy cannot name without ml_dtypes)
# expect-fail: numpy-match
import time

import jax.numpy as jnp


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        samples.append(stop - start)
    return out.astype(jnp.bfloat16), samples
