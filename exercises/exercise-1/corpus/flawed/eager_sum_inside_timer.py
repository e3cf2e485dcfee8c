# flaw: a checksum with jnp.sum first used inside the timer: its compilation lands in the first sample
# expect-fail: warmup-excluded interval-clean
import time

import jax.numpy as jnp


def synchronized_samples(fn, args, repeats):
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
