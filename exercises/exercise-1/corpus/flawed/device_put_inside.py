# flaw: jax.device_put of the arguments inside the timed interval
# expect-fail: placement-excluded
import time

import jax


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        placed = jax.device_put(args)
        out = fn(*placed)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
