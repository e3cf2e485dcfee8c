# flaw: sweeps (and reports) the settings in sorted order, not in the order given: samples[i] is not settings[i]'s
# expect-fail: times-the-call
import time


def sweep_samples(fn, args, settings, repeats):
    ordered = sorted(settings)
    for setting in ordered:
        fn(*args, setting).block_until_ready()
    outputs, samples = [], []
    for setting in ordered:
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
