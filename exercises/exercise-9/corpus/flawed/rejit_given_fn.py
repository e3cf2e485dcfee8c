# flaw: re-wraps fn as jax.jit(fn, static_argnums=...) and times that wrapper, not the fn it was given
# expect-fail: times-the-call
import time

import jax


def sweep_samples(fn, args, settings, repeats):
    swept = jax.jit(fn, static_argnums=len(args))
    for setting in settings:
        swept(*args, setting).block_until_ready()
    outputs, samples = [], []
    for setting in settings:
        times = []
        out = None
        for _ in range(repeats):
            start = time.perf_counter()
            out = swept(*args, setting)
            out.block_until_ready()
            times.append(time.perf_counter() - start)
        outputs.append(out)
        samples.append(times)
    return outputs, samples
