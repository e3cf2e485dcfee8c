# flaw: each warm sample holds two calls: it keeps one call's output and waits on another
# expect-fail: times-the-call
import statistics
import time

import jax


def timing_report(make_fn, args, first_repeats, warm_repeats):
    jax.block_until_ready(args)
    first = []
    for _ in range(first_repeats):
        fresh = make_fn()
        start = time.perf_counter()
        fresh(*args).block_until_ready()
        first.append(time.perf_counter() - start)
    fn = make_fn()
    fn(*args).block_until_ready()
    warm = []
    for _ in range(warm_repeats):
        start = time.perf_counter()
        result = fn(*args)
        fn(*args).block_until_ready()
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
