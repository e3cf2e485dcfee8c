# exercise: exercise-1
# cheat: float(t1) - float(t0) hides the subtraction, and the timer stops at dispatch
# expect-fail: sync-before-stop covers-device-work
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        t1 = time.perf_counter()
        samples.append(float(t1) - float(t0))
    out.block_until_ready()
    return out, samples
