# flaw: each sample is stored as a 0-d JAX array (jnp.asarray of the difference), not a float
# expect-fail: sample-count report-schema
import time

import jax
import jax.numpy as jnp


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    jax.block_until_ready(fn(*args))
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        result.block_until_ready()
        samples.append(jnp.asarray(time.perf_counter() - start))
    return {"boundary": {"dispatch", "device execution", "output wait"}, "samples": samples}, result
