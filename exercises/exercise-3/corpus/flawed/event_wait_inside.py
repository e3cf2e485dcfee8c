# flaw: a threading.Event().wait(timeout) inside the timed interval (a pause no hook sees)
# expect-fail: interval-clean sample-duration
# tpu-may-pass: interval-clean
import threading
import time

import jax
import jax.numpy as jnp
import numpy as np


def device_resident_benchmark(fn, host_args, device, repeats):
    """Place `host_args` on `device`, warm `fn` up, then time `repeats` completed calls.

    `host_args` is a tuple of NumPy arrays. `fn` is jitted but not yet compiled for these
    shapes. Placement and warm-up must finish before the first sample starts.

    Returns:
        (last_output, samples): the output of the last timed call, and a list of `repeats`
        floats, each one call on the placed arguments, in seconds, from just before the
        call until its output is ready.
    """
    # One-off setup, outside the timer: place, wait, warm up (compiles), wait.
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()

    samples = []
    out = None
    for i in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        if i == 1:
            threading.Event().wait(1.0)
        samples.append(time.perf_counter() - start)
    return out, samples
