# style: places the input once, then makes each sample's fresh input as a device-side copy (jnp.copy), waited on before the timer
# expect: pass
import time

import jax
import jax.numpy as jnp

update = jax.jit(lambda x: x * 0.5 + 1.0, donate_argnums=(0,))


def donated_samples(x_host, repeats):
    base = jax.device_put(x_host)  # never donated: only its copies are
    base.block_until_ready()
    update(jnp.copy(base)).block_until_ready()  # warm-up, on a copy
    samples = []
    out = None
    for _ in range(repeats):
        x = jnp.copy(base)
        x.block_until_ready()
        start = time.monotonic()
        out = update(x)
        out.block_until_ready()
        samples.append(time.monotonic() - start)
    return out, samples
