# style: waits on a value computed from the output, out.sum().block_until_ready(), monotonic clock
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        t0 = time.monotonic()
        out = fn(*args)
        out.sum().block_until_ready()
        t1 = time.monotonic()
        samples.append(t1 - t0)
    return out, samples
