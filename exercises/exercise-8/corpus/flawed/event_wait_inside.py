# flaw: a threading.Event().wait(timeout) inside one timed interval (a pause no hook
#   sees)
# expect-fail: interval-clean sample-duration
# tpu-may-pass: interval-clean
import threading
import time

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
        if len(samples) == 1:  # the second sample
            threading.Event().wait(1.0)
        samples.append(time.perf_counter() - start)
    return host_result, samples
