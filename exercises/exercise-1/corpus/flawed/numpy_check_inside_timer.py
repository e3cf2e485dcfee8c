# flaw: recomputes the expected result with NumPy inside the timed interval
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
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
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()  # wait for *this* call's output before stopping
        if len(host) == 2 and host[1].ndim == 2:  # the probe passes other arguments
            expected = np.tanh(host[0] @ host[1])  # a host check of the result
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples
