# style: each arg waited with a.block_until_ready(); a contextmanager timer; frozenset boundary
# expect: pass
import contextlib
import timeit


@contextlib.contextmanager
def timed(samples):
    start = timeit.default_timer()
    yield
    samples.append(timeit.default_timer() - start)


WARM_BOUNDARY = frozenset({"dispatch", "device execution", "output wait"})


def repaired_benchmark(fn, args, repeats=5):
    for a in args:
        a.block_until_ready()
    fn(*args).block_until_ready()
    samples = []
    result = None
    for _ in range(repeats):
        with timed(samples):
            result = fn(*args)
            result.block_until_ready()
    return {"boundary": set(WARM_BOUNDARY), "samples": samples}, result
