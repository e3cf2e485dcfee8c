# flaw: raises; passes the setting inside the argument tuple, so the call gets 2 arguments
#       and it raises TypeError on the first warm-up
# expect-fail: runs
import time


def sweep_samples(fn, args, settings, repeats):
    for setting in settings:
        fn((*args, setting)).block_until_ready()
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
