# style: time.time wall clock
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.time()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.time() - start)
    return out, samples
