# flaw: raises an exception whose __str__, __repr__ and metaclass __name__ all raise
# expect-fail: runs
import time


class Meta(type):
    @property
    def __name__(cls):
        raise RuntimeError("no name")


class E(Exception, metaclass=Meta):
    def __str__(self):
        raise RuntimeError("no message")

    def __repr__(self):
        raise RuntimeError("no repr")


def synchronized_samples(fn, args, repeats):
    samples = []
    start = time.perf_counter()
    out = fn(*args)
    raise E()
    return out, samples
