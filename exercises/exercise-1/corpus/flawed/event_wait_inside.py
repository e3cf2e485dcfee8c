# flaw: a threading.Event().wait(timeout) inside the timed interval (a pause no hook sees)
# expect-fail: interval-clean sample-duration
# tpu-may-pass: interval-clean
import threading
import time

import jax
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
    samples = []
    out = None
    host = [np.asarray(a) for a in args]  # host copies, made before timing
    for i in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        if i == 1:
            threading.Event().wait(1.0)
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples
