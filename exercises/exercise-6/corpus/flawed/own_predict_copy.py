# flaw: repairs the timer around its own copy of the lesson's compiled_predict instead of the fn it is given (the grader's probe workload is not a matmul, so that call crashes)
# expect-fail: runs times-the-call
import time

import jax
import jax.numpy as jnp

compiled_predict = jax.jit(lambda x, w: jnp.tanh(x @ w))


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    jax.block_until_ready(compiled_predict(*args))
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = compiled_predict(*args)
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    boundary = {"dispatch", "device execution", "output wait"}
    return {"boundary": boundary, "samples": samples}, result
