# flaw: places each fresh input inside the timer (the stub's mistake, with a warm-up): every sample times the copy to the device
# expect-fail: inputs-ready placement-excluded
import time

import jax


step_donated = jax.jit(lambda x: x * 0.5 + 1.0, donate_argnums=0)


def donated_samples(x_host, repeats):
    step_donated(jax.device_put(x_host)).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        x = jax.device_put(x_host)
        out = step_donated(x)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
