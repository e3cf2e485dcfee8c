# flaw: two calls per sample: keeps the first call's output and waits on a second call
# expect-fail: times-the-call
import timeit

import jax


def device_resident_benchmark(fn, host_args, device, repeats):
    args = jax.device_put(tuple(host_args), device)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()

    samples = []
    result = None
    for _ in range(repeats):
        start = timeit.default_timer()
        result = fn(*args)
        fn(*args).block_until_ready()
        samples.append(timeit.default_timer() - start)
    return result, samples
