# style: the shipped flawed_benchmark left in place; wait on args, warm-up, out.block_until_ready()
# expect: pass
import time

import jax


def flawed_benchmark(fn, host_args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a) for a in host_args]
        out = fn(*args)
        samples.append(time.perf_counter() - start)
    return out, samples


def repaired_benchmark(fn, args, repeats=5):
    jax.block_until_ready(args)
    jax.block_until_ready(fn(*args))
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    report = {"boundary": {"dispatch", "device execution", "output wait"}, "samples": samples}
    return report, result
