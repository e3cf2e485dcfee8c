# flaw: like a public benchmark, each sample (first-call and warm) is timeit with number=10: ten calls per sample
# expect-fail: times-the-call
import statistics
import timeit

import jax


def timing_report(make_fn, args, first_repeats, warm_repeats):
    jax.block_until_ready(args)
    first = []
    for _ in range(first_repeats):
        fn = make_fn()
        first.append(timeit.timeit(lambda fn=fn: fn(*args).block_until_ready(), number=10))
    fn = make_fn()
    fn(*args).block_until_ready()
    warm = timeit.repeat(lambda: fn(*args).block_until_ready(), repeat=warm_repeats, number=10)
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
