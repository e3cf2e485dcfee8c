# flaw: make_fn wrapped in functools.lru_cache: every first-call sample after the first
#   reuses one compiled callable
# expect-fail: first-call-includes-compile
import functools
import statistics
import time

import jax


def _s(fn, args):
    t0 = time.perf_counter()
    fn(*args).block_until_ready()
    return time.perf_counter() - t0


def timing_report(make_fn, args, first_repeats, warm_repeats):
    fresh = functools.lru_cache(maxsize=None)(make_fn)
    first = [_s(fresh(), args) for _ in range(first_repeats)]
    fn = make_fn()
    fn(*args).block_until_ready()
    warm = [_s(fn, args) for _ in range(warm_repeats)]
    fm, wm = statistics.median(first), statistics.median(warm)
    return {
        "first_call_s": first,
        "warm_s": warm,
        "first_call_median_s": fm,
        "warm_median_s": wm,
        "compile_estimate_s": fm - wm,
        "environment": {
            "jax_version": jax.__version__,
            "backend": jax.default_backend(),
            "device": jax.devices()[0].device_kind,
        },
        "workload": {
            "shapes": [list(a.shape) for a in args],
            "dtypes": [str(a.dtype) for a in args],
        },
        "boundary": ["dispatch", "device execution", "output wait"],
    }
