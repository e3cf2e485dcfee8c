# flaw: two calls per sample: keeps one call's output and waits on another
# expect-fail: times-the-call
import time


def sweep_samples(fn, args, settings, repeats):
    for setting in settings:
        fn(*args, setting).block_until_ready()
    outputs, samples = [], []
    for setting in settings:
        times = []
        result = None
        for _ in range(repeats):
            start = time.perf_counter()
            result = fn(*args, setting)
            fn(*args, setting).block_until_ready()
            times.append(time.perf_counter() - start)
        outputs.append(result)
        samples.append(times)
    return outputs, samples
