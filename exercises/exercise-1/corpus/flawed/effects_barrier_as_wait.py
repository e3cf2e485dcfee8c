# flaw: jax.effects_barrier() as the wait: it waits for side effects, not for the output
# expect-fail: sync-before-stop covers-device-work
import time

import jax


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        jax.effects_barrier()
        samples.append(time.perf_counter() - start)
    return out, samples
