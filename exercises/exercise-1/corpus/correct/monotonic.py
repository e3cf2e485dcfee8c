# style: time.monotonic clock
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        begin = time.monotonic()
        out = fn(*args)
        out.block_until_ready()
        end = time.monotonic()
        samples.append(end - begin)
    return out, samples
