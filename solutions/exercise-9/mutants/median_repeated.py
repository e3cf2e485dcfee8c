# mutant: returns each setting's median repeated instead of the measured samples
# must-fail: samples-measured
"""Mutant of exercise-9 (see the header)."""

import time

import jax
import numpy as np


def sweep_samples(fn, args, settings, repeats):
    for setting in settings:
        fn(*args, setting).block_until_ready()
    outputs, samples = [], []
    for setting in settings:
        times = []
        out = None
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            out.block_until_ready()
            times.append(time.perf_counter() - start)
        outputs.append(out)
        samples.append([float(np.median(times) * 1.01)] * repeats)
    return outputs, samples
