# style: compiles ahead of time (lower().compile()) and times the compiled program on the
#   placed, waited inputs
# expect: pass
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = jax.device_put(tuple(host_args), device)
    jax.block_until_ready(args)
    compiled = fn.lower(*args).compile()
    compiled(*args).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
