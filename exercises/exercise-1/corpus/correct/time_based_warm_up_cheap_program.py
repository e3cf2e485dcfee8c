# style: keeps the runtime busy for two seconds with a cheap jitted program before the
#   timed loop (a time-based warm-up: hundreds of thousands of calls, waits and clock
#   reads outside every timed interval)
# expect: pass
import time

import jax
import jax.numpy as jnp

_tiny = jax.jit(lambda a: a + 1.0)


def _keep_busy(seconds):
    x = jnp.zeros((4,))
    begun = time.perf_counter()
    while time.perf_counter() - begun < seconds:
        x = _tiny(x)
        x.block_until_ready()


def synchronized_samples(fn, args, repeats):
    _keep_busy(2.0)
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples
