# flaw: 2,000 eager sums on the output inside the second sample, the sample their first
#   use compiles in (the compilations are credited their own durations, not the sample)
# expect-fail: sample-duration
"""Exercise 10: Time a step whose input is donated (reference solution)."""

import time

import jax
import jax.numpy as jnp


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
        start = time.perf_counter()
        out = step_donated(x)
        out.block_until_ready()
        if len(samples) == 1:
            for _ in range(2000):
                jnp.sum(out * out).block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples

