# flaw: hands NumPy work to a thread inside the timed interval and waits in join()
# expect-fail: interval-clean sample-duration
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
            worker = threading.Thread(target=host_work, args=(host,))
            worker.start()
            worker.join()
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples


def host_work(host):
    """The lesson's NumPy reference, many times over (about a second)."""
    if host[1].ndim != 2:  # the grader's probe passes other arguments
        return
    for _ in range(50):
        np.tanh(host[0] @ host[1])
