# flaw: the warm samples are kept newest first (`deque.appendleft`): `warm_s` is returned in
#   the reverse of the order the samples were taken
# expect-fail: times-the-call
import collections
import statistics
import time

import jax


def _seconds(fn, args):
    t0 = time.perf_counter()
    jax.block_until_ready(fn(*args))
    return time.perf_counter() - t0


def timing_report(make_fn, args, first_repeats, warm_repeats):
    jax.block_until_ready(args)
    first_call_s = [_seconds(make_fn(), args) for _ in range(first_repeats)]
    fn = make_fn()
    jax.block_until_ready(fn(*args))
    recent = collections.deque(maxlen=warm_repeats)  # newest first
    for _ in range(warm_repeats):
        recent.appendleft(_seconds(fn, args))
    warm_s = list(recent)
    first_median, warm_median = statistics.median(first_call_s), statistics.median(warm_s)
    return {
        "first_call_s": first_call_s,
        "warm_s": warm_s,
        "first_call_median_s": first_median,
        "warm_median_s": warm_median,
        "compile_estimate_s": first_median - warm_median,
        "environment": {"jax_version": jax.__version__, "backend": jax.default_backend(),
                        "device": jax.devices()[0].device_kind},
        "workload": {"shapes": [list(a.shape) for a in args],
                     "dtypes": [str(a.dtype) for a in args]},
        "boundary": ["dispatch", "device execution", "output wait"],
    }
