# flaw: two calls per sample: it returns the first call's output and waits on a second call
# expect-fail: times-the-call
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        fn(*args).block_until_ready()
        samples.append(time.perf_counter() - start)
    return result, samples
