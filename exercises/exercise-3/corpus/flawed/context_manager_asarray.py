# flaw: a context-manager timer whose wait is np.asarray(out): the interval also copies the output to the host
# expect-fail: times-the-call
import timeit

import jax
import numpy as np


class Stopwatch:
    def __enter__(self):
        self.t0 = timeit.default_timer()
        return self

    def __exit__(self, *exc):
        self.seconds = timeit.default_timer() - self.t0
        return False


def device_resident_benchmark(fn, host_args, device, repeats):
    args = [jax.device_put(a, device) for a in host_args]
    jax.block_until_ready(args)
    np.asarray(fn(*args))  # warm-up, waited on by the host conversion

    samples = []
    out = None
    for _ in range(repeats):
        with Stopwatch() as sw:
            out = fn(*args)
            np.asarray(out)
        samples.append(sw.seconds)
    return out, samples
