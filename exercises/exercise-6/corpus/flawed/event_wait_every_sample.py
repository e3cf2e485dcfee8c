# flaw: a 5 ms threading.Event().wait(timeout) in every sample, after the output is
#   ready: a pause no hook records, too short for the call's duration bound
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import threading
import time

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
        threading.Event().wait(0.005)
        samples.append(time.perf_counter() - start)
    boundary = {"dispatch", "device execution", "output wait"}
    return {"boundary": boundary, "samples": samples}, result
