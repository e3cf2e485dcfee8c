# style: medians and the compile estimate rounded to the microsecond for the report (the samples as measured)
# expect: pass
import statistics
import time

import jax


def timing_report(make_fn, args, first_repeats, warm_repeats):
    jax.block_until_ready(args)
    first = []
    for _ in range(first_repeats):
        fn = make_fn()
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        first.append(time.perf_counter() - start)

    fn = make_fn()
    fn(*args).block_until_ready()
    warm = []
    for _ in range(warm_repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        warm.append(time.perf_counter() - start)

    first_median = round(statistics.median(first), 6)
    warm_median = round(statistics.median(warm), 6)
    return {
        "first_call_s": first,
        "warm_s": warm,
        "first_call_median_s": first_median,
        "warm_median_s": warm_median,
        "compile_estimate_s": round(first_median - warm_median, 6),
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
