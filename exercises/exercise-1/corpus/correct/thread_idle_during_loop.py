# style: starts a thread before the timed loop that does NumPy work before it and
#   after it, and waits (idle) while the samples are taken
# expect: pass
import threading
import time

import jax
import jax.numpy as jnp
import numpy as np


def synchronized_samples(fn, args, repeats):
    """Time `repeats` calls of `fn(*args)`, each until its output is ready.

    `fn` is compiled and warmed up; `args` are placed on the device and ready.

    Returns:
        (last_output, samples): the output of the last call, and a list of `repeats`
        floats, each the duration of one call in seconds, from just before the call
        until that call's output is ready.
    """
    samples = []
    out = None
    checked, loop_done = threading.Event(), threading.Event()
    worker = threading.Thread(target=checker, args=(checked, loop_done))
    worker.start()
    checked.wait()  # its first check ends before the first sample starts
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        samples.append(stop - start)
    loop_done.set()  # after the last stop read
    worker.join()
    return out, samples


_RNG = np.random.default_rng(1)
_X = _RNG.normal(size=(2048, 1024)).astype(np.float32)


def host_work():
    """A NumPy check on the host, about 6 ms of one core."""
    for _ in range(8):
        np.tanh(_X)


def checker(checked, loop_done):
    """A helper thread: a check before the timed loop, then idle (blocked, no CPU time)
    until the loop has ended, then another check."""
    host_work()
    checked.set()
    loop_done.wait()
    host_work()
