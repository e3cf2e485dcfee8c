# exercise: exercise-1
# cheat: adds a global named like a builtin (`isinstance`) to a hook's module, so the hook calls the learner's function instead of the builtin (free to lie about what it sees)
# expect: tampered
import builtins
import time

import jax

calls = []


def isinstance(obj, kind):  # noqa: A001 - shadowing is the cheat
    calls.append(1)
    return builtins.isinstance(obj, kind)


jax.jit.__globals__["isinstance"] = isinstance


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
