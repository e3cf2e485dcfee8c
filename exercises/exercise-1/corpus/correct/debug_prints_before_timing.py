# style: prints 20,000 debug lines before its timed loop (the prints cost what they cost)
# expect: pass
import time

import jax
import jax.numpy as jnp
import numpy as np

DEBUG_LINES = 20_000


def synchronized_samples(fn, args, repeats):
    """Time `repeats` calls of `fn(*args)`, each until its output is ready.

    `fn` is compiled and warmed up; `args` are placed on the device and ready.

    Returns:
        (last_output, samples): the output of the last call, and a list of `repeats`
        floats, each the duration of one call in seconds, from just before the call
        until that call's output is ready.
    """
    for i in range(DEBUG_LINES):  # a learner's debugging, left in, outside the timer
        print("debug: line", i, "before timing", repeats, "samples")
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()  # wait for *this* call's output before stopping
        stop = time.perf_counter()
        samples.append(stop - start)
    print("done:", len(samples), "samples")
    return out, samples
