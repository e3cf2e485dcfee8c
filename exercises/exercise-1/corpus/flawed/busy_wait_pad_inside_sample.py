# flaw: a busy-wait of 20 ms inside every sample, after the wait: host work the
#   sample includes (its run of clock reads goes on into the stop read and the next
#   start read)
# expect-fail: interval-clean
# may-fail: sample-duration
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        padded = time.perf_counter()
        while time.perf_counter() - padded < 0.02:  # "let the device settle"
            pass
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples
