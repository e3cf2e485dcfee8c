# exercise: exercise-1
# cheat: measures correct, waited intervals, throws them away and returns other numbers
# expect-fail: samples-measured
import time


def synchronized_samples(fn, args, repeats):
    measured = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        measured.append(stop - start)
    # Report a "nicer" number instead of what was measured (large enough for any probe).
    return out, [max(measured) * 1.25 + 0.001 * k for k in range(repeats)]
