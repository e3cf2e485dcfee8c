# exercise: exercise-1
# cheat: returns a 64 MiB result array and a nested list of ten million samples
# expect-fail: numpy-match sample-count
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
    big = jnp.zeros((4096, 4096), jnp.float32)
    return big, [samples * 1000] * 10000
