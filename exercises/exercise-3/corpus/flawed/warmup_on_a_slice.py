# flaw: the warm-up runs on half of the rows: another shape is another program, so the
#   first sample compiles
# expect-fail: warmup-excluded
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    x, *rest = args
    fn(x[: x.shape[0] // 2], *rest).block_until_ready()  # a quick warm-up on a slice
    samples = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - t0)
    return out, samples
