# flaw: the lesson's signature repaired_benchmark(fn, args): no repeats parameter, always 5 samples
# expect-fail: runs
import time

import jax


def repaired_benchmark(fn, args):
    jax.block_until_ready(args)
    jax.block_until_ready(fn(*args))
    samples = []
    result = None
    for _ in range(5):
        start = time.perf_counter()
        result = fn(*args)
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    return {"boundary": {"dispatch", "device execution", "output wait"}, "samples": samples}, result
