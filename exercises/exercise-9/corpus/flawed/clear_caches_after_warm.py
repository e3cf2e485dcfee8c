# flaw: each setting warmed, then jax.clear_caches(): its first sample compiles again
# expect-fail: warmup-excluded
import time

import jax


def sweep_samples(fn, args, settings, repeats):
    outputs, samples = [], []
    for s in settings:
        fn(*args, s).block_until_ready()
        jax.clear_caches()
        row, out = [], None
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = fn(*args, s)
            out.block_until_ready()
            row.append(time.perf_counter() - t0)
        outputs.append(out)
        samples.append(row)
    return outputs, samples
