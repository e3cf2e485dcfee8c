# flaw: the declared boundary leaves out device execution, although the wait covers it
# expect-fail: boundary-matches
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
    return {"boundary": {"dispatch", "output wait"}, "samples": samples}, result
