# flaw: warms up "the function" once: every other static value compiles inside a sample
# expect-fail: warmup-excluded
"""Warms up "the function" once: every other static value compiles inside a sample."""
import time


def sweep_samples(fn, args, settings, repeats):
    fn(*args, settings[0]).block_until_ready()
    outputs, samples = [], []
    for setting in settings:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            out.block_until_ready()
            times.append(time.perf_counter() - start)
        outputs.append(out)
        samples.append(times)
    return outputs, samples
