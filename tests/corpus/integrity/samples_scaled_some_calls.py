# exercise: exercise-1
# cheat: times every call correctly but scales one sample by 1.5
# expect-fail: samples-measured
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for i in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        s = stop - start
        samples.append(s * 1.5 if i == repeats // 2 else s)
    return out, samples
