# flaw: the medians (and so the compile estimate) are 0-d JAX arrays, not floats
# expect-fail: report-schema
import time

import jax
import jax.numpy as jnp


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

    first_median = jnp.median(jnp.asarray(first))
    warm_median = jnp.median(jnp.asarray(warm))
    return {
        "first_call_s": first,
        "warm_s": warm,
        "first_call_median_s": first_median,
        "warm_median_s": warm_median,
        "compile_estimate_s": first_median - warm_median,
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
