# style: compiles the donating jit ahead of time (lower().compile()) and times the compiled program
# expect: pass
import time

import jax


def step(x):
    return x * 0.5 + 1.0


def donated_samples(x_host, repeats):
    compiled = jax.jit(step, donate_argnums=0).lower(jax.device_put(x_host)).compile()
    compiled(jax.device_put(x_host)).block_until_ready()  # warm-up on a copy of its own
    samples = []
    out = None
    for _ in range(repeats):
        x = jax.device_put(x_host)
        x.block_until_ready()
        start = time.perf_counter()
        out = compiled(x)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
