# flaw: checks each output against that setting's warm-up NumPy copy inside the timer: readback and host comparison in every sample
# expect-fail: times-the-call interval-clean
# tpu-may-pass: interval-clean
import time

import numpy as np


def sweep_samples(fn, args, settings, repeats):
    expected = [np.asarray(fn(*args, setting)) for setting in settings]  # warm-ups
    outputs, samples = [], []
    for setting, reference in zip(settings, expected):
        times = []
        out = None
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            np.testing.assert_allclose(np.asarray(out), reference)
            times.append(time.perf_counter() - start)
        outputs.append(out)
        samples.append(times)
    return outputs, samples
