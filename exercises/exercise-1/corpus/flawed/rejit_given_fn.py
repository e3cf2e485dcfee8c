# flaw: wraps the given fn in a new jax.jit (warmed up) and times that wrapper instead of fn
# expect-fail: times-the-call
import time

import jax


def synchronized_samples(fn, args, repeats):
    fast = jax.jit(fn)
    fast(*args).block_until_ready()  # compile the wrapper outside the timer
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fast(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
