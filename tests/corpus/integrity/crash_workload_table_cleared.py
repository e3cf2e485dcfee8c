# exercise: exercise-1
# cheat: clears and replaces the grader's workload table at import, hoping the grader breaks
# expect: tampered
import time

import syncgrade.child.workloads as w

w.WORKLOADS["predict"] = lambda x, y: x
w.WORKLOADS.clear()
w.put = None
w.wait = None


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples
