# style: time.clock_gettime(time.CLOCK_MONOTONIC) clock
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        begin = time.clock_gettime(time.CLOCK_MONOTONIC)
        out = fn(*args)
        out.block_until_ready()
        end = time.clock_gettime(time.CLOCK_MONOTONIC)
        samples.append(end - begin)
    return out, samples
