# exercise: exercise-1
# cheat: replaces builtins.isinstance so the call hook records no outputs for the timed calls (nothing for the readiness check at the stop read), "waits" with the wait hook's code run with a no-op original, skips the real wait for a dispatch-only speedup, and times the probe honestly; the wait is on no recorded output, so sync-before-stop still fails
# expect-fail: sync-before-stop
import builtins
import time
import types

import jax.numpy as jnp

_real_isinstance = builtins.isinstance
_hiding = [False]


def _isinstance(obj, classes):
    if _hiding[0] and getattr(classes, "__name__", "") == "ArrayImpl":
        return False
    return _real_isinstance(obj, classes)


builtins.isinstance = _isinstance
hook = type(jnp.zeros(1)).block_until_ready
cells = [types.CellType(cell.cell_contents) for cell in hook.__closure__ or ()]
cells[hook.__code__.co_freevars.index("original")] = types.CellType(lambda self, *a, **k: self)
fake_wait = types.FunctionType(hook.__code__, hook.__globals__, hook.__name__, None, tuple(cells))


def synchronized_samples(fn, args, repeats):
    honest = getattr(fn, "__name__", "") == "spin"
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        _hiding[0] = not honest
        out = fn(*args)
        _hiding[0] = False
        if honest:
            out.block_until_ready()
        else:
            fake_wait(out)
        samples.append(time.perf_counter() - start)
    out.block_until_ready()
    return out, samples
