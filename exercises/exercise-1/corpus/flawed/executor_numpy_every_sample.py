# flaw: submits a few milliseconds of NumPy work to a ThreadPoolExecutor in every
#   sample and waits in result() inside the timed interval
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
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
    pool = ThreadPoolExecutor(max_workers=1)  # its thread starts at the first submit
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        pool.submit(host_work).result()
        stop = time.perf_counter()
        samples.append(stop - start)
    pool.shutdown()
    return out, samples


_RNG = np.random.default_rng(1)
_X = _RNG.normal(size=(2048, 1024)).astype(np.float32)


def host_work():
    """A NumPy check on the host, about 6 ms of one core (elementwise: NumPy runs it on
    the calling thread, whatever the machine's BLAS does)."""
    for _ in range(8):
        np.tanh(_X)
