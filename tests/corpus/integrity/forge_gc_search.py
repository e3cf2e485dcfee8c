# exercise: exercise-1
# cheat: searches gc.get_objects() for the grader's Recorder and harness to rewrite what was recorded
# expect: tampered
import gc
import time

found = []
try:
    found = [o for o in gc.get_objects() if type(o).__name__ in ("Recorder", "Harness")]
except Exception:
    pass
try:
    gc.get_referrers(time.perf_counter)
except Exception:
    pass


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        samples.append(time.perf_counter() - start)
    return out, samples
