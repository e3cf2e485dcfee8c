# flaw: jax.config.update("jax_disable_jit", True) at import: the handed-over function runs op by op, nothing compiled
# expect-fail: times-the-call
import time

import jax

jax.config.update("jax_disable_jit", True)


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
