# flaw: args are waited on but there is no warm-up; the first interval compiles fn
# expect-fail: warmup-excluded boundary-matches
import time

import jax


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    return {"boundary": {"dispatch", "device execution", "output wait"}, "samples": samples}, result
