# style: donates by name (donate_argnames="state") and passes the state as a keyword; the samples come from a list of start/stop pairs
# expect: pass
from functools import partial
from time import perf_counter

import jax


@partial(jax.jit, donate_argnames="state")
def advance(state):
    return state * 0.5 + 1.0


def donated_samples(x_host, repeats):
    advance(state=jax.device_put(x_host)).block_until_ready()
    reads = []
    out = None
    for _ in range(repeats):
        state = jax.device_put(x_host)
        jax.block_until_ready(state)
        begin = perf_counter()
        out = advance(state=state)
        out.block_until_ready()
        reads.append((begin, perf_counter()))
    return out, [stop - begin for begin, stop in reads]
