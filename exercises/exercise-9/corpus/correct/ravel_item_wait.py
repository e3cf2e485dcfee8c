# style: waits by reading one element of the output, out.ravel()[0].item(), settings interleaved by index
# expect: pass
import time


def sweep_samples(fn, args, settings, repeats):
    for s in settings:
        fn(*args, s).ravel()[0].item()
    samples = [[] for _ in settings]
    outputs = [None] * len(settings)
    for i, s in enumerate(settings):
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = fn(*args, s)
            out.ravel()[0].item()
            samples[i].append(time.perf_counter() - t0)
        outputs[i] = out
    return outputs, samples
