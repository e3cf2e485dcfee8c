# style: a helper timing one request with timeit.default_timer; .tolist() then np.array(dtype)
# expect: pass
import timeit

import jax
import numpy as np


def one_request(fn, host_args, device):
    start = timeit.default_timer()
    args = [jax.device_put(a, device) for a in host_args]
    out = fn(*args)
    host = np.array(out.tolist(), dtype=out.dtype)
    return host, timeit.default_timer() - start


def end_to_end_samples(fn, host_args, device, repeats):
    warm_args = [jax.device_put(a, device) for a in host_args]
    fn(*warm_args).block_until_ready()
    requests = [one_request(fn, host_args, device) for _ in range(repeats)]
    return requests[-1][0], [seconds for _, seconds in requests]
