# flaw: "fixes" the deleted-array error by removing donate_argnums, placing the input once: the timed program allocates a new output every call
# expect-fail: donates-input
import time

import jax


def step(x):
    return x * 0.5 + 1.0


step_jit = jax.jit(step)


def donated_samples(x_host, repeats):
    x = jax.device_put(x_host)
    step_jit(x).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = step_jit(x)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
