# style: the solution's loop, then an untimed call on a 64x larger input after the samples
# expect: pass
import time

import jax.numpy as jnp


def synchronized_samples(fn, args, repeats):
    """Time `repeats` calls of `fn(*args)`, each until its output is ready.

    `fn` is compiled and warmed up; `args` are placed on the device and ready.

    Returns:
        (last_output, samples): the output of the last call, and a list of `repeats`
        floats, each the duration of one call in seconds, from just before the call
        until that call's output is ready.
    """
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()  # wait for *this* call's output before stopping
        stop = time.perf_counter()
        samples.append(stop - start)
    # A check at scale after the samples, outside every timer.
    x, w = args
    larger = jnp.concatenate([x] * 64, axis=0)
    fn(larger, w).block_until_ready()
    return out, samples
