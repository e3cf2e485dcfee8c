# mutant: stops the timer when the call returns, without waiting for its output
# must-fail: sync-before-stop covers-device-work
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
            times.append(time.perf_counter() - start)
        out.block_until_ready()
        outputs.append(out)
        samples.append(times)
    return outputs, samples
