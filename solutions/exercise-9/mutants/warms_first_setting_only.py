# mutant: warms up the first setting only, so every other setting compiles in its first sample
# must-fail: warmup-excluded
"""Mutant of exercise-9 (see the header)."""

import time

import jax
import numpy as np


def sweep_samples(fn, args, settings, repeats):
    fn(*args, settings[0]).block_until_ready()
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
        samples.append(times)
    return outputs, samples
