# style: the report is built as pydantic models and returned with model_dump()
# expect: pass
import statistics
import time

import jax
from pydantic import BaseModel


class Environment(BaseModel):
    jax_version: str
    backend: str
    device: str


class Workload(BaseModel):
    shapes: list[list[int]]
    dtypes: list[str]


class TimingReport(BaseModel):
    first_call_s: list[float]
    warm_s: list[float]
    first_call_median_s: float
    warm_median_s: float
    compile_estimate_s: float
    environment: Environment
    workload: Workload
    boundary: list[str]


def completed(fn, args):
    start = time.perf_counter()
    fn(*args).block_until_ready()
    return time.perf_counter() - start


def timing_report(make_fn, args, first_repeats, warm_repeats):
    jax.block_until_ready(args)
    first = [completed(make_fn(), args) for _ in range(first_repeats)]
    fn = make_fn()
    fn(*args).block_until_ready()
    warm = [completed(fn, args) for _ in range(warm_repeats)]
    report = TimingReport(
        first_call_s=first,
        warm_s=warm,
        first_call_median_s=statistics.median(first),
        warm_median_s=statistics.median(warm),
        compile_estimate_s=statistics.median(first) - statistics.median(warm),
        environment=Environment(
            jax_version=jax.__version__,
            backend=jax.default_backend(),
            device=next(iter(args[0].devices())).device_kind,
        ),
        workload=Workload(shapes=[list(a.shape) for a in args],
                          dtypes=[str(a.dtype) for a in args]),
        boundary=["dispatch", "device execution", "output wait"],
    )
    return report.model_dump()
