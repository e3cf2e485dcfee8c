# style: args made ready by a waited warm-up call that consumed them; perf_counter_ns / 1e9
# expect: pass
import time

BOUNDARY = ["dispatch", "device execution", "output wait"]


def repaired_benchmark(fn, args, repeats=5):
    fn(*args).block_until_ready()  # waits for the args too: the call consumed them
    samples = []
    result = None
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        result = fn(*args)
        result.block_until_ready()
        samples.append((time.perf_counter_ns() - t0) / 1e9)
    return {"boundary": set(BOUNDARY), "samples": samples}, result
