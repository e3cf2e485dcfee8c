# style: jax.block_until_ready on a tuple holding the output
# expect: pass
import time

import jax


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        jax.block_until_ready((out,))
        samples.append(time.perf_counter() - start)
    return out, samples
