# style: the wait and the stop read in a finally: block
# expect: pass
import time

import jax


def synchronized_samples(fn, args, repeats):
    samples, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        try:
            out = fn(*args)
        finally:
            jax.block_until_ready(out)
            samples.append(time.perf_counter() - t0)
    return out, samples
