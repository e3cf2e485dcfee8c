# flaw: two calls per request: one call is waited on, a second one is read back
# expect-fail: times-the-call
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    warm_args = jax.device_put(tuple(host_args), device)
    fn(*warm_args).block_until_ready()
    samples = []
    host_result = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = jax.device_put(tuple(host_args), device)
        fn(*args).block_until_ready()
        host_result = np.asarray(fn(*args))
        samples.append(time.perf_counter() - start)
    return host_result, samples
