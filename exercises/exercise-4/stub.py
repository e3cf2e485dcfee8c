"""Exercise 4: Check an independent NumPy result first (changed workload).

Write `changed_workload`. Run `python submission.py` to see your own timings, and
`grade exercise-4` to grade this file.
"""

import time

import jax
import jax.numpy as jnp
import numpy as np


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    """Benchmark `compiled_predict` on a new `(rows, w_host.shape[0])` input.

    Draw the input with `rng.normal(...)` as float32, place it on `device` and wait, warm
    up (`compiled_predict` is jitted but not compiled for the new shape), check the result
    against `np.tanh(larger_host @ w_host)` with
    `np.testing.assert_allclose(..., atol=2e-5, rtol=2e-5)` (raise on mismatch), then take
    `repeats` synchronized samples.

    Returns:
        (larger_host, result, samples): the NumPy input, the output of the last timed call,
        and a list of `repeats` floats in seconds.
    """
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    # TODO: this version starts timing straight away: nothing waits for the placement,
    # the first sample compiles the new shape, and the result is only checked at the end.
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    np.testing.assert_allclose(np.asarray(out), np.tanh(larger_host @ w_host),
                               atol=2e-5, rtol=2e-5)
    return larger_host, out, samples


if __name__ == "__main__":
    # The lesson's world.
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    cpu = jax.devices("cpu")[0]
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    compiled_predict = jax.jit(lambda x, w: jnp.tanh(x @ w))
    compiled_predict(x, w).block_until_ready()  # compiled for 64 rows only


    # Which calls compiled: JAX reports each compilation as it happens, so this does not
    # depend on timings (a busy machine can make any sample slow without compiling).
    compile_seconds = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, seconds, **_: compile_seconds.append(seconds)
        if event == "/jax/core/compile/backend_compile_duration" else None)
    compiled_in_call = []  # seconds spent compiling during each call of the function

    def watched(*args):
        before = len(compile_seconds)
        out = compiled_predict(*args)
        compiled_in_call.append(sum(compile_seconds[before:]))
        return out

    larger_host, result, samples = changed_workload(watched, w_host, w, 96, rng, cpu, 5)
    print("Changed workload:", larger_host.shape, "->", result.shape)
    print("samples (ms):", [f"{s * 1e3:.3f}" for s in samples])
    timed = compiled_in_call[-len(samples):]  # your samples time your last calls
    if any(timed):
        first = next(i for i, seconds in enumerate(timed) if seconds)
        print(f"Sample {first + 1} includes compiling ({timed[first] * 1e3:.0f} ms of it): "
              "warm up before the timer starts.")
    else:
        print(f"No sample includes compiling: nothing compiled during your last "
              f"{len(samples)} calls.")
