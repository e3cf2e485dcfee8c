# flaw: the training-loop idiom state = step(state): each sample's input is the previous
#   output, so the result is step applied repeats + 1 times, not step(x_host)
# expect-fail: numpy-match
import time

import jax


def step(x):
    return x * 0.5 + 1.0


step_donated = jax.jit(step, donate_argnums=0)


def donated_samples(x_host, repeats):
    state = step_donated(jax.device_put(x_host))
    state.block_until_ready()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        state = step_donated(state)
        state.block_until_ready()
        samples.append(time.perf_counter() - start)
    return state, samples
