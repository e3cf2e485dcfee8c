# style: waits on a value computed from the output, out.sum().block_until_ready()
# expect: pass
import time


def sweep_samples(fn, args, settings, repeats):
    for setting in settings:
        fn(*args, setting).sum().block_until_ready()
    outputs, samples = [], []
    for setting in settings:
        times = []
        out = None
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            out.sum().block_until_ready()
            times.append(time.perf_counter() - start)
        outputs.append(out)
        samples.append(times)
    return outputs, samples
