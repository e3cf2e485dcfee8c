# style: a young-generation `gc.collect(0)` between the wait and the stop read: the
#        collector's own pause is no work of the learner's
# expect: pass
import gc
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        gc.collect(0)
        samples.append(time.perf_counter() - start)
    return out, samples
