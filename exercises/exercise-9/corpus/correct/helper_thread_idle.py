# style: a helper thread that checks NumPy work when the module loads and then waits,
#   idle, for the whole grade; an executor checks again after the timed loop
# expect: pass
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def sweep_samples(fn, args, settings, repeats):
    """Time `repeats` warm calls of `fn(*args, setting)` for every setting.

    `fn` is jitted with its last parameter static: each new setting compiles on its first
    call. `args` are placed on the device and ready.

    Returns:
        (outputs, samples): `outputs[i]` is the output of the last call with
        `settings[i]`; `samples[i]` is a list of `repeats` floats, each the duration of
        one warm call with `settings[i]` in seconds, until its output is ready.
    """
    # Each static value is its own program: compile and wait for every one of them
    # before any timer starts.
    for setting in settings:
        fn(*args, setting).block_until_ready()
    outputs, samples = [], []
    for setting in settings:
        times = []
        out = None
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            out.block_until_ready()
            stop = time.perf_counter()
            times.append(stop - start)
        outputs.append(out)
        samples.append(times)
    _POOL.submit(host_work).result()  # a check after the timed loop: outside the intervals
    return outputs, samples


@partial(jax.jit, static_argnums=2)
def blocked_predict(x, w, block):
    """tanh(x @ w), computed `block` rows at a time; `block` is static."""
    parts = [jnp.tanh(x[i:i + block] @ w) for i in range(0, x.shape[0], block)]
    return jnp.concatenate(parts, axis=0)


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
