# style: a generator yields each sample (perf_counter_ns), jax.block_until_ready on the
#   output, list() collects them
# expect: pass
import time

import jax


def _timed(fn, args, repeats, box):
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        box[0] = fn(*args)
        jax.block_until_ready(box[0])
        yield (time.perf_counter_ns() - t0) / 1e9


def synchronized_samples(fn, args, repeats):
    box = [None]
    samples = list(_timed(fn, args, repeats, box))
    return box[0], samples
