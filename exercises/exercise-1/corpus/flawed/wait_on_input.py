# flaw: waits on the inputs (already ready) instead of the output
# expect-fail: sync-before-stop covers-device-work
import time

import jax


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        jax.block_until_ready(args)
        samples.append(time.perf_counter() - start)
    return out, samples
