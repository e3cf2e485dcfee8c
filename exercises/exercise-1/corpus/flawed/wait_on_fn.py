# flaw: jax.block_until_ready(fn) waits on the function object: nothing to wait for
# expect-fail: sync-before-stop covers-device-work
import time

import jax


def synchronized_samples(fn, args, repeats):
    samples, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        jax.block_until_ready(fn)
        samples.append(time.perf_counter() - t0)
    return out, samples
