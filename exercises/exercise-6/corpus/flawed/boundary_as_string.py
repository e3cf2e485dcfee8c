# flaw: the boundary is the lesson's sentence (a str), not a set of phase names
# expect-fail: report-schema
import time

import jax


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    jax.block_until_ready(fn(*args))
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    return {"boundary": "placed inputs; warm call plus output wait", "samples": samples}, result
