# flaw: an asyncio benchmark whose helper thread (asyncio.to_thread) waits for the output
#   and then runs a few milliseconds of NumPy work, all inside the timed interval: the
#   wait there is a wait, the NumPy work is not
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import asyncio
import time

import numpy as np

_RNG = np.random.default_rng(1)
_X = _RNG.normal(size=(2048, 1024)).astype(np.float32)


def _wait_and_check(out):
    """Waits for `out`, then a NumPy check on the host (about 6 ms of one core)."""
    out.block_until_ready()
    for _ in range(8):
        np.tanh(_X)


async def _samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        await asyncio.to_thread(_wait_and_check, out)
        samples.append(time.perf_counter() - start)
    return out, samples


def synchronized_samples(fn, args, repeats):
    return asyncio.run(_samples(fn, args, repeats))
