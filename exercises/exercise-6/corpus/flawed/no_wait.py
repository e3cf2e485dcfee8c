# flaw: args ready and fn warm, but the timer stops at dispatch; the declared boundary claims more
# expect-fail: sync-before-stop boundary-matches covers-device-work
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
        samples.append(time.perf_counter() - start)
    return {"boundary": {"dispatch", "device execution", "output wait"}, "samples": samples}, result
