# flaw: the result stays on the device (a JAX array is returned): waited, never read back
# expect-fail: readback-included numpy-match
import time

import jax


def end_to_end_samples(fn, host_args, device, repeats):
    jax.block_until_ready(fn(*[jax.device_put(a, device) for a in host_args]))
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
