# style: the NumPy inputs go straight into fn (an implicit host-to-device transfer inside the call); warm-up the same way
# expect: pass
import time

import jax
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    jax.block_until_ready(fn(*host_args))  # compiles the specialization the samples use
    samples = []
    host = None
    for _ in range(repeats):
        start = time.perf_counter()
        host = np.asarray(fn(*host_args))
        samples.append(time.perf_counter() - start)
    return host, samples
