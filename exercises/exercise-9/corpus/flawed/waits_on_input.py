# flaw: waits on an input, not on the timed output
# expect-fail: sync-before-stop covers-device-work
"""Waits on an input, not on the timed output."""
import time

import jax


def sweep_samples(fn, args, settings, repeats):
    for setting in settings:
        fn(*args, setting).block_until_ready()
    outputs, samples = [], []
    for setting in settings:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            jax.block_until_ready(args)
            times.append(time.perf_counter() - start)
        out.block_until_ready()
        outputs.append(out)
        samples.append(times)
    return outputs, samples
