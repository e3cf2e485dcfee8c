# style: timeit.default_timer
# expect: pass
import timeit


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = timeit.default_timer()
        out = fn(*args)
        out.block_until_ready()
        samples.append(timeit.default_timer() - start)
    return out, samples
