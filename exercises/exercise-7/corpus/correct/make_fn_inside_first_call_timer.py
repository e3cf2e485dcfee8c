# style: creates each first-call callable (make_fn()) inside its timed interval
# expect: pass
"""Exercise 7: a reproducible report, each first-call callable made inside its interval."""

import json
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

WARM_BOUNDARY = ["dispatch", "device execution", "output wait"]


def _completed_call_seconds(fn, args):
    """One sample: from just before `fn(*args)` until its output is ready, in seconds."""
    start = time.perf_counter()
    out = fn(*args)
    out.block_until_ready()
    return time.perf_counter() - start


def timing_report(make_fn, args, first_repeats, warm_repeats):
    """Time first calls (a fresh `make_fn()` each) and warm calls (one callable, warmed).

    `make_fn()` returns a fresh jitted function whose first call traces and compiles;
    `args` are placed on the device.

    Returns:
        A JSON-serializable dict with `first_call_s`, `warm_s` (lists of seconds),
        `first_call_median_s`, `warm_median_s`, `compile_estimate_s` (floats),
        `environment` (`jax_version`, `backend`, `device`), `workload` (`shapes`,
        `dtypes`) and `boundary` (a list of the phases a warm interval contains).
    """
    jax.block_until_ready(args)

    # A fresh callable per sample: every first-call interval traces and compiles.
    first_call_s = []
    for _ in range(first_repeats):
        start = time.perf_counter()
        f = make_fn()
        f(*args).block_until_ready()
        first_call_s.append(time.perf_counter() - start)

    # One callable, warmed outside the timer, reused by every warm sample.
    fn = make_fn()
    fn(*args).block_until_ready()
    warm_s = [_completed_call_seconds(fn, args) for _ in range(warm_repeats)]

    first_call_median_s = statistics.median(first_call_s)
    warm_median_s = statistics.median(warm_s)
    device = next(iter(args[0].devices()))
    return {
        "first_call_s": first_call_s,
        "warm_s": warm_s,
        "first_call_median_s": first_call_median_s,
        "warm_median_s": warm_median_s,
        "compile_estimate_s": first_call_median_s - warm_median_s,
        "environment": {
            "jax_version": jax.__version__,
            "backend": jax.default_backend(),
            "device": device.device_kind,
        },
        "workload": {
            "shapes": [list(a.shape) for a in args],
            "dtypes": [str(a.dtype) for a in args],
        },
        "boundary": list(WARM_BOUNDARY),
    }


