# flaw: each warm sample also checks the output against the warm-up's NumPy copy (readback and comparison inside the timer), and the warm boundary leaves that transfer out
# expect-fail: times-the-call boundary-matches interval-clean
# tpu-may-pass: interval-clean
import statistics
import time

import jax
import numpy as np


def timing_report(make_fn, args, first_repeats, warm_repeats):
    jax.block_until_ready(args)
    first = []
    for _ in range(first_repeats):
        fresh = make_fn()
        start = time.perf_counter()
        fresh(*args).block_until_ready()
        first.append(time.perf_counter() - start)
    fn = make_fn()
    expected = np.asarray(fn(*args))  # warm-up, kept as the reference
    warm = []
    for _ in range(warm_repeats):
        start = time.perf_counter()
        out = fn(*args)
        np.testing.assert_allclose(np.asarray(out), expected)
        warm.append(time.perf_counter() - start)
    f_med, w_med = statistics.median(first), statistics.median(warm)
    return {
        "first_call_s": first,
        "warm_s": warm,
        "first_call_median_s": f_med,
        "warm_median_s": w_med,
        "compile_estimate_s": f_med - w_med,
        "environment": {"jax_version": jax.__version__, "backend": jax.default_backend(),
                        "device": jax.devices()[0].device_kind},
        "workload": {"shapes": [list(a.shape) for a in args],
                     "dtypes": [str(a.dtype) for a in args]},
        "boundary": ["dispatch", "device execution", "output wait"],
    }
