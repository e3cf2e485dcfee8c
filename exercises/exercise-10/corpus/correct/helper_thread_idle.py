# style: a helper thread that checks NumPy work when the module loads and then waits,
#   idle, for the whole grade; an executor checks again after the timed loop
# expect: pass
import threading
import time
from concurrent.futures import ThreadPoolExecutor

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
        start = time.perf_counter()
        out = step_donated(x)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    _POOL.submit(host_work).result()  # a check after the timed loop: outside the intervals
    return out, samples


_RNG = np.random.default_rng(1)
_X = _RNG.normal(size=(2048, 1024)).astype(np.float32)


def host_work():
    """A NumPy check on the host, about 6 ms of one core (elementwise: NumPy runs it on
    the calling thread, whatever the machine's BLAS does)."""
    for _ in range(8):
        np.tanh(_X)


_POOL = ThreadPoolExecutor(1)  # its thread starts at the first submit


# A helper thread, started when the module loads: one check, then it waits (idle, no CPU
# time) for as long as the process lives. Loading waits for the check to end.
_checked, _never = threading.Event(), threading.Event()


def _helper():
    host_work()
    _checked.set()
    _never.wait()


threading.Thread(target=_helper, daemon=True).start()
_checked.wait()
