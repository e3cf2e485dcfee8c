# style: a helper thread that checks NumPy work when the module loads and then waits,
#   idle, for the whole grade; an executor checks again after the timed loop
# expect: pass
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import jax
import jax.numpy as jnp
import numpy as np

PHASES = (
    "input placement",
    "compilation",
    "dispatch",
    "device execution",
    "output wait",
    "host transfer",
)


def flawed_benchmark(fn, host_args, repeats):
    """The timer from the bug report (given; do not edit).

    Each sample places the NumPy `host_args` on the device inside the timer, and stops as
    soon as `fn` returns a handle, before the device has finished.
    """
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a) for a in host_args]
        out = fn(*args)
        samples.append(time.perf_counter() - start)
    return out, samples


def repaired_benchmark(fn, args, repeats=5):
    """Time `repeats` warm, completed calls of `fn(*args)` on placed `args`.

    `args` are placed on the device but may not be ready; `fn` is jitted but not yet
    compiled for them.

    Returns:
        (report, result): `report` is `{"boundary": set[str], "samples": list[float]}`,
        where `boundary` is the set of phases (from `PHASES`) your interval contains and
        `samples` holds `repeats` durations in seconds; `result` is the output of the last
        timed call.
    """
    jax.block_until_ready(args)  # placement finishes before any timing
    jax.block_until_ready(fn(*args))  # warm-up: compilation stays outside the timer
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        result.block_until_ready()  # wait for this call's output before stopping
        samples.append(time.perf_counter() - start)
    _POOL.submit(host_work).result()  # a check after the timed loop: outside the intervals
    boundary = {"dispatch", "device execution", "output wait"}
    return {"boundary": boundary, "samples": samples}, result


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
