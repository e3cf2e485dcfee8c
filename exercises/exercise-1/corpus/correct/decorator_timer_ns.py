# style: a decorator times the wrapped call-and-wait with perf_counter_ns and keeps the
#   elapsed seconds on the wrapper
# expect: pass
import functools
import time


def timed(func):
    @functools.wraps(func)
    def wrapper(*a, **kw):
        t0 = time.perf_counter_ns()
        result = func(*a, **kw)
        wrapper.elapsed = (time.perf_counter_ns() - t0) / 1e9
        return result
    wrapper.elapsed = 0.0
    return wrapper


def synchronized_samples(fn, args, repeats):
    @timed
    def run():
        return fn(*args).block_until_ready()

    samples = []
    out = None
    for _ in range(repeats):
        out = run()
        samples.append(run.elapsed)
    return out, samples
