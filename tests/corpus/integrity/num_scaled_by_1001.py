# exercise: exercise-1
# cheat: times the calls right but returns the output scaled by 1.001 (a 0.1% error)
# expect-fail: numpy-match
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
    # Within 2.3e-2 of the reference near z = 0, where float32 rounding over K = 768 allows
    # as much; but 1e-3 off where tanh saturates, where it allows about 4e-5.
    return out * 1.001, samples
