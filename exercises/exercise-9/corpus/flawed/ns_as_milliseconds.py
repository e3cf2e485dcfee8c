# flaw: perf_counter_ns divided by 1e6: milliseconds, not seconds
# expect-fail: sample-count
"""perf_counter_ns divided by 1e6: milliseconds, not seconds."""
import time


def sweep_samples(fn, args, settings, repeats):
    outputs, samples = [], []
    for setting in settings:
        fn(*args, setting).block_until_ready()
    for setting in settings:
        times = []
        for _ in range(repeats):
            start = time.perf_counter_ns()
            out = fn(*args, setting)
            out.block_until_ready()
            times.append((time.perf_counter_ns() - start) / 1e6)
        outputs.append(out)
        samples.append(times)
    return outputs, samples
