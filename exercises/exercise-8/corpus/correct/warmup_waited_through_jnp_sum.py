# style: the warm-up is waited on through a checksum computed from its output
#        (`float(jnp.sum(warm))`), which is ready only once the warm-up is
# expect: pass
import time

import jax
import jax.numpy as jnp
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    warm = fn(*[jax.device_put(a, device) for a in host_args])
    assert np.isfinite(float(jnp.sum(warm)))
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]
        host = np.asarray(fn(*args))
        samples.append(time.perf_counter() - start)
    return host, samples
