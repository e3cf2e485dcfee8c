# style: perf_counter_ns / 1e9, jax.block_until_ready(fn(*args)), np.median cast to float
# expect: pass
from time import perf_counter_ns

import jax
import numpy as np


def _sample(fn, args):
    t0 = perf_counter_ns()
    jax.block_until_ready(fn(*args))
    return (perf_counter_ns() - t0) / 1e9


def timing_report(make_fn, args, first_repeats, warm_repeats):
    jax.block_until_ready(args)
    first = [_sample(make_fn(), args) for _ in range(first_repeats)]
    warm_fn = make_fn()
    jax.block_until_ready(warm_fn(*args))
    warm = [_sample(warm_fn, args) for _ in range(warm_repeats)]
    first_median = float(np.median(first))
    warm_median = float(np.median(warm))
    device = args[0].device
    return {
        "first_call_s": first,
        "warm_s": warm,
        "first_call_median_s": first_median,
        "warm_median_s": warm_median,
        "compile_estimate_s": first_median - warm_median,
        "environment": {
            "jax_version": jax.__version__,
            "backend": jax.default_backend(),
            "device": device.device_kind,
        },
        "workload": {
            "shapes": [[int(n) for n in a.shape] for a in args],
            "dtypes": [a.dtype.name for a in args],
        },
        "boundary": ["dispatch", "device execution", "output wait"],
    }
