# flaw: heavy unrelated device work dispatched before each start read and never waited
#   for: the timed call can queue behind it
# expect-fail: warmup-excluded
import time

import jax
import jax.numpy as jnp

_big = jnp.ones((1024, 1024), jnp.float32)
_heavy = jax.jit(lambda a: jnp.tanh(a @ a @ a))
_heavy(_big).block_until_ready()


def synchronized_samples(fn, args, repeats):
    samples, out = [], None
    for _ in range(repeats):
        _heavy(_big)  # not waited: the device is busy when the timer starts
        t0 = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - t0)
    return out, samples
