# flaw: benchmarks its own jit of the lesson's tanh(x @ w) instead of the fn it is given (the probe workload is not a matmul, so that call crashes)
# expect-fail: runs times-the-call
import time

import jax
import jax.numpy as jnp


@jax.jit
def compiled_predict(x, w):
    return jnp.tanh(x @ w)


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    compiled_predict(*args).block_until_ready()

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
