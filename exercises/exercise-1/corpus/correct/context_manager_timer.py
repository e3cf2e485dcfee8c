# style: a context-manager timer class; the wait happens inside the with block
# expect: pass
import time


class Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self.start
        return False


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        with Timer() as timer:
            out = fn(*args)
            out.block_until_ready()
        samples.append(timer.elapsed)
    return out, samples
