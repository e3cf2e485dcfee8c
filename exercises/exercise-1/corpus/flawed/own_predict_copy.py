# flaw: times its own copy of the lesson's predict instead of the fn it is given (the grader's probe workload is not a matmul, so that call crashes)
# expect-fail: runs times-the-call
import time

import jax
import jax.numpy as jnp

predict = jax.jit(lambda x, w: jnp.tanh(x @ w))


def synchronized_samples(fn, args, repeats):
    predict(*args).block_until_ready()  # warm up my copy
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = predict(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
