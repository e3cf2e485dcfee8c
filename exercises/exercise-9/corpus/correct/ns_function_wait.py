# style: perf_counter_ns and jax.block_until_ready, converted to seconds
# expect: pass
"""perf_counter_ns and jax.block_until_ready, converted to seconds."""
from time import perf_counter_ns

import jax


def sweep_samples(fn, args, settings, repeats):
    outputs, samples = [], []
    for setting in settings:
        jax.block_until_ready(fn(*args, setting))
    for setting in settings:
        times = []
        for _ in range(repeats):
            start = perf_counter_ns()
            out = jax.block_until_ready(fn(*args, setting))
            times.append((perf_counter_ns() - start) / 1e9)
        outputs.append(out)
        samples.append(times)
    return outputs, samples
