# style: a lap timer: each stop read is also the next sample's start read
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    lap = time.perf_counter()
    for _ in range(repeats):
        out = fn(*args)
        out.block_until_ready()
        now = time.perf_counter()
        samples.append(now - lap)
        lap = now
    return out, samples
