# style: each sample inside a jax.profiler.TraceAnnotation context
# expect: pass
import time

import jax


def synchronized_samples(fn, args, repeats):
    samples, out = [], None
    for i in range(repeats):
        with jax.profiler.TraceAnnotation(f"sample {i}"):
            t0 = time.perf_counter()
            out = fn(*args)
            out.block_until_ready()
            samples.append(time.perf_counter() - t0)
    return out, samples
