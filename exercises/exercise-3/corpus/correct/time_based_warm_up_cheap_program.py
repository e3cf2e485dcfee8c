# style: places and warms up, then keeps the runtime busy for two seconds with a cheap
#   jitted program before the timed loop (hundreds of thousands of calls, waits and
#   clock reads outside every timed interval)
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


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()
    _keep_busy(2.0)
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
