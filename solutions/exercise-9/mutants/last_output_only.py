# mutant: returns only the last output instead of one output per setting
# must-fail: numpy-match
"""Mutant of exercise-9 (see the header)."""

import time

import jax
import numpy as np


def sweep_samples(fn, args, settings, repeats):
    for setting in settings:
        fn(*args, setting).block_until_ready()
    samples = []
    out = None
    for setting in settings:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            out.block_until_ready()
            times.append(time.perf_counter() - start)
        samples.append(times)
    return out, samples
