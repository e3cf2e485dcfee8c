# style: jax.clear_caches() before each first-call sample (each still a fresh make_fn())
# expect: pass
import statistics
import time

import jax


def _s(fn, args):
    t0 = time.perf_counter()
    fn(*args).block_until_ready()
    return time.perf_counter() - t0


def timing_report(make_fn, args, first_repeats, warm_repeats):
    first = []
    for _ in range(first_repeats):
        jax.clear_caches()
        first.append(_s(make_fn(), args))
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
