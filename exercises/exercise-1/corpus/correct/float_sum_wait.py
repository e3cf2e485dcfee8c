# style: waits by reading a value computed from the output, float(out.sum())
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        float(out.sum())  # a host float of the output's sum: cannot exist before out does
        samples.append(time.perf_counter() - start)
    return out, samples
