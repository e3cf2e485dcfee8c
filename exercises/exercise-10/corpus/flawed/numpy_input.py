# flaw: hands the donating jit the NumPy array itself: jax copies it to the device inside each call and donates that copy, never an input of the learner's
# expect-fail: inputs-ready placement-excluded donates-input
import time

import jax


step_donated = jax.jit(lambda x: x * 0.5 + 1.0, donate_argnums=0)


def donated_samples(x_host, repeats):
    step_donated(x_host).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = step_donated(x_host)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
