# exercise: exercise-1
# cheat: returns NaN and infinite samples mixed with measured ones
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
    odd = [float("nan"), float("-inf"), float("inf")]
    samples[: len(odd)] = odd[: len(samples)]
    return out, samples
