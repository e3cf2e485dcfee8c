# flaw: a threading.Event().wait(timeout) inside one timed interval (a pause no hook
#   sees)
# expect-fail: interval-clean sample-duration
# tpu-may-pass: interval-clean
import threading
import time
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def sweep_samples(fn, args, settings, repeats):
    """Time `repeats` warm calls of `fn(*args, setting)` for every setting.

    `fn` is jitted with its last parameter static: each new setting compiles on its first
    call. `args` are placed on the device and ready.

    Returns:
        (outputs, samples): `outputs[i]` is the output of the last call with
        `settings[i]`; `samples[i]` is a list of `repeats` floats, each the duration of
        one warm call with `settings[i]` in seconds, until its output is ready.
    """
    # Each static value is its own program: compile and wait for every one of them
    # before any timer starts.
    for setting in settings:
        fn(*args, setting).block_until_ready()
    outputs, samples = [], []
    for setting in settings:
        times = []
        out = None
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            out.block_until_ready()
            if len(times) == 1:  # the second sample
                threading.Event().wait(1.0)
            stop = time.perf_counter()
            times.append(stop - start)
        outputs.append(out)
        samples.append(times)
    return outputs, samples


@partial(jax.jit, static_argnums=2)
def blocked_predict(x, w, block):
    """tanh(x @ w), computed `block` rows at a time; `block` is static."""
    parts = [jnp.tanh(x[i:i + block] @ w) for i in range(0, x.shape[0], block)]
    return jnp.concatenate(parts, axis=0)
