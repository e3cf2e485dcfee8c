# flaw: each "first call" is compiled ahead of time (lower().compile()) outside the timer,
#   so no first-call sample holds a compilation
# expect-fail: first-call-includes-compile
import statistics
import time

import jax


def _timed(fn, args):
    t0 = time.perf_counter()
    jax.block_until_ready(fn(*args))
    return time.perf_counter() - t0


def timing_report(make_fn, args, first_repeats, warm_repeats):
    jax.block_until_ready(args)
    first = []
    for _ in range(first_repeats):
        compiled = make_fn().lower(*args).compile()
        first.append(_timed(compiled, args))
    fn = make_fn()
    jax.block_until_ready(fn(*args))
    warm = [_timed(fn, args) for _ in range(warm_repeats)]
    fm, wm = statistics.median(first), statistics.median(warm)
    return {
        "first_call_s": first,
        "warm_s": warm,
        "first_call_median_s": fm,
        "warm_median_s": wm,
        "compile_estimate_s": fm - wm,
        "environment": {"jax_version": jax.__version__, "backend": jax.default_backend(),
                        "device": jax.devices()[0].device_kind},
        "workload": {"shapes": [list(a.shape) for a in args],
                     "dtypes": [str(a.dtype) for a in args]},
        "boundary": ["dispatch", "device execution", "output wait"],
    }
