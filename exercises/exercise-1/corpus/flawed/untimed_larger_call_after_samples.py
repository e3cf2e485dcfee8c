# flaw: heavy eager jnp.einsum work on the timed output inside one sample, then an
#   untimed call of the same function on a 64x larger input after the samples (the
#   grader's own timing must be of the call the samples hold, not of that one)
# expect-fail: sample-duration
# may-fail: interval-clean
# tpu-may-pass: sample-duration
import time

import jax.numpy as jnp
import numpy as np


def synchronized_samples(fn, args, repeats):
    """Time `repeats` calls of `fn(*args)`, each until its output is ready.

    `fn` is compiled and warmed up; `args` are placed on the device and ready.

    Returns:
        (last_output, samples): the output of the last call, and a list of `repeats`
        floats, each the duration of one call in seconds, from just before the call
        until that call's output is ready.
    """
    warm = fn(*args)
    if warm.ndim == 2:  # the einsum compiles here, outside the timer
        jnp.einsum("ij,kj,kl->il", warm, warm, warm).block_until_ready()
    samples = []
    out = None
    [np.asarray(a) for a in args]  # host copies, made before timing
    for i in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        if i == 1 and out.ndim == 2:
            for _ in range(60):
                jnp.einsum("ij,kj,kl->il", out, out, out).block_until_ready()
        stop = time.perf_counter()
        samples.append(stop - start)
    # A check at scale after the samples, outside every timer.
    x, w = args
    larger = jnp.concatenate([x] * 64, axis=0)
    fn(larger, w).block_until_ready()
    return out, samples
