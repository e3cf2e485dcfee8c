# style: a dataclass report turned into a dict with dataclasses.asdict; time.monotonic
# expect: pass
import dataclasses
import statistics
import time

import jax


@dataclasses.dataclass
class Report:
    first_call_s: list
    warm_s: list
    first_call_median_s: float
    warm_median_s: float
    compile_estimate_s: float
    environment: dict
    workload: dict
    boundary: list


def timing_report(make_fn, args, first_repeats, warm_repeats):
    for a in args:
        a.block_until_ready()

    first_call_s = []
    for _ in range(first_repeats):
        fresh = make_fn()
        began = time.monotonic()
        fresh(*args).block_until_ready()
        first_call_s.append(time.monotonic() - began)

    warm = make_fn()
    warm(*args).block_until_ready()
    warm_s = []
    for _ in range(warm_repeats):
        began = time.monotonic()
        warm(*args).block_until_ready()
        warm_s.append(time.monotonic() - began)

    first_med, warm_med = statistics.median(first_call_s), statistics.median(warm_s)
    report = Report(
        first_call_s=first_call_s,
        warm_s=warm_s,
        first_call_median_s=first_med,
        warm_median_s=warm_med,
        compile_estimate_s=first_med - warm_med,
        environment={"jax_version": jax.__version__, "backend": jax.default_backend(),
                     "device": jax.devices()[0].device_kind},
        workload={"shapes": [list(a.shape) for a in args], "dtypes": [str(a.dtype) for a in args]},
        boundary=["dispatch", "device execution", "output wait"],
    )
    return dataclasses.asdict(report)
