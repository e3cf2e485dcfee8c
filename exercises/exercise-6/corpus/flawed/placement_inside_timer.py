# flaw: like flawed_benchmark, every sample re-places the args with jax.device_put inside the timer
# expect-fail: placement-excluded boundary-matches
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
    return {"boundary": {"dispatch", "device execution", "output wait"}, "samples": samples}, result
