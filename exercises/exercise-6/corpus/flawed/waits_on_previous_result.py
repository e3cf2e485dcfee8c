# flaw: each sample waits on the previous sample's result (already finished), not on its own call's
# expect-fail: sync-before-stop covers-device-work boundary-matches
import time

import jax


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    previous = jax.block_until_ready(fn(*args))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        previous.block_until_ready()
        samples.append(time.perf_counter() - start)
        previous = result
    result.block_until_ready()
    return {"boundary": {"dispatch", "device execution", "output wait"}, "samples": samples}, result
