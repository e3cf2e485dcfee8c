# style: from time import perf_counter
# expect: pass
from time import perf_counter


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(perf_counter() - start)
    return out, samples
