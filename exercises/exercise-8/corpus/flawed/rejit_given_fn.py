# flaw: times a jax.jit wrapper of fn that it built and warmed itself, not the fn it was given
# expect-fail: times-the-call
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    request = jax.jit(fn)
    jax.block_until_ready(request(*[jax.device_put(a, device) for a in host_args]))
    samples = []
    host_result = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]
        host_result = np.asarray(request(*args))
        samples.append(time.perf_counter() - start)
    return host_result, samples
