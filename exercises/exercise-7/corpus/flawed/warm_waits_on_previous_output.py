# flaw: each warm sample waits on the previous warm output (already finished), not on its own call's
# expect-fail: sync-before-stop covers-device-work boundary-matches
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
    previous = fn(*args).block_until_ready()
    warm = []
    for _ in range(warm_repeats):
        start = time.perf_counter()
        out = fn(*args)
        previous.block_until_ready()
        warm.append(time.perf_counter() - start)
        previous = out
    out.block_until_ready()
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
