# style: time.perf_counter_ns, converted to seconds
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start_ns = time.perf_counter_ns()
        out = fn(*args)
        out.block_until_ready()
        stop_ns = time.perf_counter_ns()
        samples.append((stop_ns - start_ns) / 1e9)
    return out, samples
