# exercise: exercise-1
# cheat: hand-makes clock readings with a chosen seq so the recorded subtraction claims an interval that was never measured
# expect: tampered
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        stop = time.perf_counter()
        fake = type(stop)(float(stop) + 0.05)  # a Reading the clock never returned
        fake.seq = stop.seq
        samples.append(fake - start)
    return out, samples
