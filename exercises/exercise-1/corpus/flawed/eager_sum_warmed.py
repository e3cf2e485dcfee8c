# flaw: a checksum with jnp.sum of the input inside the timer (compiled by one use before the
#       timed loop): extra eager work that the sample includes
# expect-fail: interval-clean
import time

import jax.numpy as jnp


def synchronized_samples(fn, args, repeats):
    jnp.sum(args[0]).block_until_ready()  # compiles the reduction before any timer
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        total = jnp.sum(args[0])
        out = fn(*args)
        out.block_until_ready()
        total.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
