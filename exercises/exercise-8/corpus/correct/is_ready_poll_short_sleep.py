# style: polls `out.is_ready()` until the output is ready, sleeping a tenth of a
#        millisecond between polls: the poll loop, sleeps and all, is the wait (the
#        sample can outlast the work by one short sleep)
# expect: pass
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    jax.block_until_ready(fn(*jax.device_put(tuple(host_args), device)))
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = jax.device_put(tuple(host_args), device)
        out = fn(*args)
        while not out.is_ready():
            time.sleep(0.0001)  # yields the CPU; a tenth of a millisecond
        host = np.asarray(out)
        samples.append(time.perf_counter() - start)
    return host, samples
