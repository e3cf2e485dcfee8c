# style: sets jax_disable_jit to False explicitly (jit stays on)
# expect: pass
import time

import jax

jax.config.update("jax_disable_jit", False)


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
