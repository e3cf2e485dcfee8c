"""Exercise 10: Time a step whose input is donated.

Write `donated_samples`. Run `python submission.py` to see your own timings, and
`grade exercise-10` to grade this file.
"""

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

    `x_host` is a NumPy array. A call of `step_donated` consumes its input: the array it
    was given is deleted, and using it again raises.

    Returns:
        (last_output, samples): the output of the last timed call, and a list of `repeats`
        floats in seconds, each one call from just before it until its output is ready.
    """
    # TODO: a donated input cannot be reused, so this version places a fresh copy for
    # every call, but inside the timer: each sample also times the copy to the device
    # (and the first one the compilation). Keep the step's own work alone in the timer.
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        x = jax.device_put(x_host)
        out = step_donated(x)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples


if __name__ == "__main__":
    # The lesson's world.
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(1024, 512)).astype(np.float32)
    result, samples = donated_samples(x_host, 5)
    np.testing.assert_allclose(np.asarray(result), x_host * 0.5 + 1.0, atol=2e-5, rtol=2e-5)
    print("samples (ms):", [f"{s * 1e3:.3f}" for s in samples])
