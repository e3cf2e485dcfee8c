# mutant: calls fn(*args) without the static setting, which raises TypeError
# must-fail: runs
"""Mutant of exercise-9 (see the header)."""

import time

import jax
import numpy as np


def sweep_samples(fn, args, settings, repeats):
    for setting in settings:
        fn(*args).block_until_ready()
    outputs, samples = [], []
    for setting in settings:
        times = []
        out = None
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args)
            out.block_until_ready()
            times.append(time.perf_counter() - start)
        outputs.append(out)
        samples.append(times)
    return outputs, samples
