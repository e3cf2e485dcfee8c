# style: the lesson's shape: a synchronized_samples helper (monotonic clock) reused by the repair
# expect: pass
import time

import jax


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.monotonic()
        out = jax.block_until_ready(fn(*args))
        samples.append(time.monotonic() - start)
    return out, samples


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    jax.block_until_ready(fn(*args))
    result, measured = synchronized_samples(fn, args, repeats)
    boundary = {"dispatch", "device execution", "output wait"}
    return {"boundary": boundary, "samples": measured}, result
