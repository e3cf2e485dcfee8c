# style: waits by reading one element of the output, out.ravel()[0].item(), perf_counter_ns
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        out = fn(*args)
        out.ravel()[0].item()
        samples.append((time.perf_counter_ns() - t0) / 1e9)
    return out, samples
