# style: device_put of the whole tuple (a pytree), a timing helper in a list comprehension,
#        time.monotonic
# expect: pass
import time

import jax


def _one_completed_call(fn, args):
    start = time.monotonic()
    out = fn(*args).block_until_ready()
    return out, time.monotonic() - start


def device_resident_benchmark(fn, host_args, device, repeats):
    args = jax.device_put(tuple(host_args), device)
    for a in args:
        a.block_until_ready()
    _one_completed_call(fn, args)  # warm-up; its sample is thrown away
    timed = [_one_completed_call(fn, args) for _ in range(repeats)]
    return timed[-1][0], [seconds for _, seconds in timed]
