# flaw: the loop runs under jax.default_device(...), a setting the compiled program is
#   keyed by: the first sample traces and compiles again
# expect-fail: warmup-excluded
import time

import jax


def synchronized_samples(fn, args, repeats):
    samples, out = [], None
    with jax.default_device(jax.devices()[0]):
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = fn(*args)
            out.block_until_ready()
            samples.append(time.perf_counter() - t0)
    return out, samples
