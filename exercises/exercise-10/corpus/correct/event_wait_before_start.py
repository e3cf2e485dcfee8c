# style: a 5 ms threading.Event().wait(timeout) before each sample's start read,
#   outside the timed interval
# expect: pass
import threading
import time

import jax
import numpy as np


def step(x):
    """One update of a large state: x * 0.5 + 1 (an in-place-style update)."""
    return x * 0.5 + 1.0


# The input is donated: XLA writes the output into the input's buffer, and the input
# array is deleted by the call.
step_donated = jax.jit(step, donate_argnums=0)


def donated_samples(x_host, repeats):
    """Time `repeats` calls of `step_donated`, each on a fresh device copy of `x_host`.

    Returns:
        (last_output, samples): the output of the last timed call, and a list of `repeats`
        floats in seconds, each one call from just before it until its output is ready.
    """
    # Warm-up on a copy of its own (the call consumes it), outside the timer.
    step_donated(jax.device_put(x_host)).block_until_ready()

    samples = []
    out = None
    for _ in range(repeats):
        # A donated array cannot be used again: place a fresh copy for every sample, and
        # wait for it, before the timer starts.
        x = jax.device_put(x_host)
        x.block_until_ready()
        threading.Event().wait(0.005)  # outside the interval
        start = time.perf_counter()
        out = step_donated(x)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
