# flaw: hands a few milliseconds of NumPy work to a thread in every sample and waits
#   in join() inside the timed interval
# expect-fail: interval-clean
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
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        worker = threading.Thread(target=host_work)
        worker.start()
        worker.join()
        samples.append(time.perf_counter() - start)
    return out, samples


_RNG = np.random.default_rng(1)
_X = _RNG.normal(size=(2048, 1024)).astype(np.float32)


def host_work():
    """A NumPy check on the host, about 6 ms of one core (elementwise: NumPy runs it on
    the calling thread, whatever the machine's BLAS does)."""
    for _ in range(8):
        np.tanh(_X)
