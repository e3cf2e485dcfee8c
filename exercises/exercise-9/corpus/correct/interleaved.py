# style: every setting compiled up front; the repeats then visit the settings in turn
# expect: pass
"""Every setting compiled up front; the repeats then visit the settings in turn."""
import time

import jax


def sweep_samples(fn, args, settings, repeats):
    jax.block_until_ready([fn(*args, s) for s in settings])
    samples = [[] for _ in settings]
    outputs = [None] * len(settings)
    for _ in range(repeats):
        for i, setting in enumerate(settings):
            t0 = time.perf_counter()
            outputs[i] = fn(*args, setting)
            outputs[i].block_until_ready()
            t1 = time.perf_counter()
            samples[i].append(t1 - t0)
    return outputs, samples
