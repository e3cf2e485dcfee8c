# style: every sample waits by reading float(out.sum()), a value computed from the output
# expect: pass
import statistics
import time

import jax


def _seconds(fn, args):
    start = time.perf_counter()
    out = fn(*args)
    float(out.sum())
    return time.perf_counter() - start


def timing_report(make_fn, args, first_repeats, warm_repeats):
    jax.block_until_ready(args)
    first = [_seconds(make_fn(), args) for _ in range(first_repeats)]
    fn = make_fn()
    float(fn(*args).sum())  # warm-up, waited the same way
    warm = [_seconds(fn, args) for _ in range(warm_repeats)]
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
