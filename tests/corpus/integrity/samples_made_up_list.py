# exercise: exercise-1
# cheat: times nothing; returns a plausible made-up list of samples
# expect-fail: samples-measured times-the-call
import time


def synchronized_samples(fn, args, repeats):
    start = time.perf_counter()
    out = None
    for _ in range(repeats):
        out = fn(*args)
    out.block_until_ready()
    elapsed = time.perf_counter() - start
    # Looks like a real distribution, scaled to the probe: but no interval produced these.
    base = max(elapsed / repeats, 0.001)
    return out, [base * (1.0 + 0.013 * k) for k in range(repeats)]
