# style: the lesson's reference solution ("Repair a timer that includes setup but omits
#        completion"), ported to the interface with only the renames it needs (5 -> repeats,
#        and the boundary as the set of phases the exercise asks for)
# expect: pass
import time

import jax


def synchronized_samples(fn, args, repeats):
    # The lesson's helper: each sample runs from just before the call until its output
    # is ready.
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples


def repaired_benchmark(fn, args, repeats=5):
    # Synchronize host execution until asynchronous device computation completes.
    jax.block_until_ready(args)
    # Synchronize host execution until asynchronous device computation completes.
    jax.block_until_ready(fn(*args))
    result, measured = synchronized_samples(fn, args, repeats)
    # "placed inputs; warm call plus output wait", as the exercise's phase names.
    boundary = {"dispatch", "device execution", "output wait"}
    return {"boundary": boundary, "samples": measured}, result
