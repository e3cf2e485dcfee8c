# exercise: exercise-1
# cheat: returns 10**400 as one sample (an int no float can hold)
# expect-fail: sample-count
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        samples.append(stop - start)
    samples[-1] = 10**400
    return out, samples
