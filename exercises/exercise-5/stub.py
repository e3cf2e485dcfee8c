"""Exercise 5: A different equivalent workload (energy).

Write `energy`, `energy_reference` and `benchmark_energy`. Run `python submission.py` to
see your own timings, and `grade exercise-5` to grade this file.
"""

import time

import jax
import jax.numpy as jnp
import numpy as np


def energy(a, b):
    """The row-wise sum of squares of `a @ b`, computed with `jax.numpy`.

    For `a` of shape `(rows, k)` and `b` of shape `(k, features)`, returns an array of
    shape `(rows,)`.
    """
    # TODO: check the shape of this result against the docstring.
    return jnp.sum((a @ b) ** 2)


def energy_reference(a_host, b_host):
    """The same quantity as `energy`, computed with NumPy only, on the host.

    Returns a NumPy array of shape `(rows,)`.
    """
    # TODO: this mirrors `energy` above; make it agree with the docstring.
    return np.sum((a_host @ b_host) ** 2)


def benchmark_energy(x, w, repeats):
    """Jit `energy`, warm it up, then time `repeats` completed calls on placed `x`, `w`.

    Returns:
        (last_output, samples): the output of the last timed call, and a list of
        `repeats` floats, each one call in seconds, from just before the call until that
        call's output is ready.
    """
    # TODO: the first sample pays for compilation, and the timer stops at dispatch.
    fast_energy = jax.jit(energy)
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fast_energy(x, w)
        samples.append(time.perf_counter() - start)
    return out, samples


if __name__ == "__main__":
    # The lesson's world.
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    cpu = jax.devices("cpu")[0]
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    compiled_predict = jax.jit(lambda x, w: jnp.tanh(x @ w))
    reference = np.tanh(x_host @ w_host)
    jax.block_until_ready((x, w))

    energy_result, energy_times = benchmark_energy(x, w, 5)
    energy_ref = np.asarray(energy_reference(x_host, w_host))
    print("energy shape:", energy_result.shape, "(expected (64,))")
    print("reference shape:", energy_ref.shape)
    same = energy_result.shape == energy_ref.shape and np.allclose(
        np.asarray(energy_result), energy_ref, atol=2e-3, rtol=2e-5
    )
    print("matches your NumPy reference:", same)
    print("energy samples (s):", [f"{s:.6f}" for s in energy_times])
    print(f"energy median:      {np.median(energy_times) * 1e3:.3f} ms")
    print("Is the first sample much larger than the others? What did it include?")
