# flaw: submits NumPy work to a ThreadPoolExecutor inside the timed interval and waits
#   in result()
# expect-fail: interval-clean sample-duration
import concurrent.futures
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
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                pool.submit(host_work).result()
        samples.append(time.perf_counter() - start)
    return out, samples


_RNG = np.random.default_rng(1)
_A = _RNG.normal(size=(1024, 768)).astype(np.float32)
_B = _RNG.normal(size=(768, 512)).astype(np.float32)


def host_work():
    """NumPy work on the host, many times over (about a second)."""
    for _ in range(50):
        np.tanh(_A @ _B)
