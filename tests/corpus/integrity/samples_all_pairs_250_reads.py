# exercise: exercise-1
# cheat: besides honest samples, reads the clock 250 times and subtracts every pair (31k
#   intervals) to slow the grader down, and returns its first sample copied `repeats` times
# expect-fail: samples-measured times-the-call
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
    reads = [time.perf_counter() for _ in range(250)]
    diffs = [b - a for i, a in enumerate(reads) for b in reads[i + 1:]]
    assert len(diffs) == 250 * 249 // 2
    return out, [samples[0]] * repeats
