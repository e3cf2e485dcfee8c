# flaw: re-wraps fn in jax.jit and times the wrapper, not the fn it was given
# expect-fail: times-the-call
import time

import jax


def repaired_benchmark(fn, args, repeats=5):
    timed = jax.jit(fn)
    jax.block_until_ready(args)
    jax.block_until_ready(timed(*args))
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = timed(*args)
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    boundary = {"dispatch", "device execution", "output wait"}
    return {"boundary": boundary, "samples": samples}, result
