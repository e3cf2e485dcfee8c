# flaw: a `gc.callbacks` entry of the learner's recomputes with NumPy as a collection
#       starts, and a collection runs inside the timer: the callback is the learner's
#       host work, not the collector's
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import gc
import time

import numpy as np

_scratch = np.random.default_rng(0).normal(size=(200_000,))


def _on_gc(phase, info):
    if phase == "start":  # inside the pause, before the collector runs
        np.sort(_scratch)


def synchronized_samples(fn, args, repeats):
    gc.callbacks.append(_on_gc)
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        gc.collect(0)
        samples.append(time.perf_counter() - start)
    gc.callbacks.remove(_on_gc)
    return out, samples
