# exercise: exercise-1
# cheat: swaps the real block_until_ready captured in the hook's closure for a no-op, so a "wait" is recorded without waiting
# expect: tampered
import time

import jax.numpy as jnp

hook = type(jnp.zeros(1)).block_until_ready
for cell in hook.__closure__ or ():
    content = cell.cell_contents
    if callable(content) and type(content).__name__ == "nb_method":  # the real method
        cell.cell_contents = lambda self, *a, **k: self


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
