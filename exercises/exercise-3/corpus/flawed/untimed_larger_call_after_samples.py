# flaw: heavy eager jnp.einsum work on the timed output inside one sample, then an
#   untimed call of the same function on a 64x larger input after the samples (the
#   grader's own timing must be of the call the samples hold, not of that one)
# expect-fail: sample-duration
# may-fail: interval-clean
# tpu-may-pass: sample-duration
import time

import jax
import jax.numpy as jnp


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

    warm = fn(*args)
    if warm.ndim == 2:  # the einsum compiles here, outside the timer
        jnp.einsum("ij,kj,kl->il", warm, warm, warm).block_until_ready()
    samples = []
    out = None
    for i in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        if i == 1 and out.ndim == 2:
            for _ in range(60):
                jnp.einsum("ij,kj,kl->il", out, out, out).block_until_ready()
        samples.append(time.perf_counter() - start)
    # A check at scale after the samples, outside every timer.
    larger = (jnp.concatenate([args[0]] * 64, axis=0), *args[1:])
    fn(*larger).block_until_ready()
    return out, samples
