# exercise: exercise-1
# cheat: imports the grader's recorder module to append made-up wait events
# expect: tampered
import time

try:
    import syncgrade.child.recorder as rec  # refused by the grader's audit hook
    FOUND = rec
except Exception:
    FOUND = None


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        samples.append(time.perf_counter() - start)
    return out, samples
