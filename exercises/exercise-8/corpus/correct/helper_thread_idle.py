# style: a helper thread that checks NumPy work when the module loads and then waits,
#   idle, for the whole grade; an executor checks again after the timed loop
# expect: pass
import threading
import time
from concurrent.futures import ThreadPoolExecutor

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
        samples.append(time.perf_counter() - start)
    _POOL.submit(host_work).result()  # a check after the timed loop: outside the intervals
    return host_result, samples


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
