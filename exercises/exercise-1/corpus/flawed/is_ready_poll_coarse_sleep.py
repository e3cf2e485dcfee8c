# flaw: polls `out.is_ready()` with a 20 ms sleep between polls: the output is ready
#       part-way through a sleep, and each sample includes the rest of it (a few-ms
#       call reads as 20 ms)
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        while not out.is_ready():
            time.sleep(0.02)  # polls every 20 ms
        samples.append(time.perf_counter() - start)
    return out, samples
