# style: every fresh copy is placed before the loop and waited on as one list; perf_counter_ns
# expect: pass
import time

import jax


def step(x):
    return x * 0.5 + 1.0


step_donated = jax.jit(step, donate_argnums=0)


def donated_samples(x_host, repeats):
    jax.block_until_ready(step_donated(jax.device_put(x_host)))
    copies = jax.block_until_ready([jax.device_put(x_host) for _ in range(repeats)])
    samples = []
    out = None
    for x in copies:
        t0 = time.perf_counter_ns()
        out = step_donated(x)
        out.block_until_ready()
        samples.append((time.perf_counter_ns() - t0) / 1e9)
    return out, samples
