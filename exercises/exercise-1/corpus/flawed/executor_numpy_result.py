# flaw: submits NumPy work to a ThreadPoolExecutor inside the timed interval and waits
#   in result()
# expect-fail: interval-clean sample-duration
import time
from concurrent.futures import ThreadPoolExecutor

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
    pool = ThreadPoolExecutor(max_workers=1)
    for i in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        if i == 1:
            pool.submit(host_work, host).result()
        stop = time.perf_counter()
        samples.append(stop - start)
    pool.shutdown()
    return out, samples


def host_work(host):
    """The lesson's NumPy reference, many times over (about a second)."""
    if host[1].ndim != 2:  # the grader's probe passes other arguments
        return
    for _ in range(50):
        np.tanh(host[0] @ host[1])
