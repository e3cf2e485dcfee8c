# exercise: exercise-3
# cheat: a correct benchmark whose even-numbered samples are padded by 10 ms
# expect-fail: samples-measured
import time

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = [jax.device_put(a, device) for a in host_args]
    jax.block_until_ready(args)
    fn(*args).block_until_ready()
    samples = []
    out = None
    for i in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        samples.append(stop - start + (0.01 if i % 2 == 0 else 0.0))
    return out, samples
