# exercise: exercise-1
# cheat: never waits on the timed call; a wait hook run with a closure of its own calls the core directly from inside it, so the core once took it for the hook two frames up and let it name an already-ready array as the latest call's output; the readiness check then saw the timed work as done (full marks for dispatch-only samples); the probe is timed honestly
# expect: tampered
import time
import types

import jax
import jax.numpy as jnp

PLACEMENT = jax.device_put  # a grader hook: its closure holds the recorder
RECORDER = PLACEMENT.__closure__[PLACEMENT.__code__.co_freevars.index("recorder")].cell_contents
SEND = RECORDER._send
DONE = [jnp.zeros(1)]
DONE[0].block_until_ready()
LAST = [0]


def fake_original(self, *args, **kwargs):
    # runs inside the wait hook's own code, so the core sees a hook two frames up
    SEND((3, LAST[0], DONE))  # CALLED: the latest call's outputs are now a ready array
    return self


hook = type(jnp.zeros(1)).block_until_ready
cells = [types.CellType(cell.cell_contents) for cell in hook.__closure__ or ()]
cells[hook.__code__.co_freevars.index("original")] = types.CellType(fake_original)
fake_wait = types.FunctionType(hook.__code__, hook.__globals__, hook.__name__, None, tuple(cells))


def synchronized_samples(fn, args, repeats):
    honest = getattr(fn, "__name__", "") == "spin"
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        if honest:
            out.block_until_ready()
        else:
            fake_wait(out)
        samples.append(time.perf_counter() - start)
    out.block_until_ready()
    return out, samples
