# flaw: submits a few milliseconds of NumPy work to a ThreadPoolExecutor in every
#   sample and waits in result() inside the timed interval
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import time
from concurrent.futures import ThreadPoolExecutor

import jax
import jax.numpy as jnp
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    """Time `repeats` end-to-end requests: place `host_args` on `device`, call `fn`, and
    bring the result back to the host as a NumPy array.

    `host_args` are NumPy arrays; `fn` is jitted but not yet compiled for them.

    Returns:
        (host_result, samples): the NumPy result of the last request, and a list of
        `repeats` floats, each one whole request in seconds.
    """
    # Warm-up outside the timer: same function, shapes, dtypes and device as the samples.
    warm_args = [jax.device_put(a, device) for a in host_args]
    jax.block_until_ready(fn(*warm_args))
    samples = []
    host_result = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]  # placement is in the request
        host_result = np.asarray(fn(*args))  # so is the readback, which also waits
        _POOL.submit(host_work).result()
        samples.append(time.perf_counter() - start)
    return host_result, samples


_RNG = np.random.default_rng(1)
_X = _RNG.normal(size=(2048, 1024)).astype(np.float32)


def host_work():
    """A NumPy check on the host, about 6 ms of one core (elementwise: NumPy runs it on
    the calling thread, whatever the machine's BLAS does)."""
    for _ in range(8):
        np.tanh(_X)


_POOL = ThreadPoolExecutor(1)  # its thread starts at the first submit
