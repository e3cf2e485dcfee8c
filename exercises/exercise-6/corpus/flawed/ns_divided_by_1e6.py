# flaw: perf_counter_ns differences divided by 1e6, so the samples are milliseconds
# expect-fail: sample-count
import time

import jax


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    jax.block_until_ready(fn(*args))
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter_ns()
        result = fn(*args)
        result.block_until_ready()
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return {"boundary": {"dispatch", "device execution", "output wait"}, "samples": samples}, result
