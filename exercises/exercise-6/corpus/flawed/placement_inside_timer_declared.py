# flaw: placement inside the timer, honestly declared in the boundary (which then matches)
# expect-fail: placement-excluded
import time

import jax


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    jax.block_until_ready(fn(*args))
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        placed = [jax.device_put(a) for a in args]
        result = fn(*placed)
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    boundary = {"input placement", "dispatch", "device execution", "output wait"}
    return {"boundary": boundary, "samples": samples}, result
