# flaw: every other sample runs the NumPy reference many times inside the timer (the clean
#   half keeps the median low)
# expect-fail: interval-clean sample-duration
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
        if i % 2:
            host_work(host)
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples


def host_work(host):
    """The lesson's NumPy reference's tanh, many times over (about half a second of one core:
    NumPy's elementwise tanh is single-threaded, so many cores do not shorten it)."""
    if host[1].ndim != 2:  # the grader's probe passes other arguments
        return
    for _ in range(1600):
        np.tanh(host[0])
