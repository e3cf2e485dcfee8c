# style: jax.block_until_ready on a dict pytree holding the output
# expect: pass
import time

import jax


def synchronized_samples(fn, args, repeats):
    samples = []
    result = {}
    for i in range(repeats):
        t0 = time.perf_counter()
        result = {"out": fn(*args), "step": i}
        jax.block_until_ready(result)
        t1 = time.perf_counter()
        samples.append(t1 - t0)
    return result["out"], samples
