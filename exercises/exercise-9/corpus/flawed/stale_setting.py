# flaw: the timed loop reuses `setting` left over from the warm-up loop: every list times the last setting
# expect-fail: times-the-call
import time


def sweep_samples(fn, args, settings, repeats):
    for setting in settings:
        fn(*args, setting).block_until_ready()
    outputs, samples = [], []
    for i in range(len(settings)):
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
