# style: chained fn(*args).block_until_ready() in a while loop
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    while len(samples) < repeats:
        start = time.perf_counter()
        out = fn(*args).block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
