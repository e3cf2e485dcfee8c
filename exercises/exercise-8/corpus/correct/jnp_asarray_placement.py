# style: host inputs placed with jnp.asarray inside the timer (the warm-up places them the same way); np.asarray readback
# expect: pass
import time

import jax.numpy as jnp
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    fn(*[jnp.asarray(a) for a in host_args]).block_until_ready()  # warm-up, same placement
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter()
        placed = [jnp.asarray(a) for a in host_args]
        host = np.asarray(fn(*placed))
        samples.append(time.perf_counter() - start)
    return host, samples
