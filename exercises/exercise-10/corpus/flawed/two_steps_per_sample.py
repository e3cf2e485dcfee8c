# flaw: times two chained steps (the second donates the first's output) in each sample
# expect-fail: numpy-match times-the-call
import time

import jax


step_donated = jax.jit(lambda x: x * 0.5 + 1.0, donate_argnums=0)


def donated_samples(x_host, repeats):
    step_donated(jax.device_put(x_host)).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        x = jax.device_put(x_host)
        x.block_until_ready()
        start = time.perf_counter()
        out = step_donated(step_donated(x))
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
