"""Exercise 3: Exclude initial placement (device-resident benchmark; reference solution)."""

import time

import jax
import jax.numpy as jnp
import numpy as np


def device_resident_benchmark(fn, host_args, device, repeats):
    """Place `host_args` on `device`, warm `fn` up, then time `repeats` completed calls.

    `host_args` is a tuple of NumPy arrays. `fn` is jitted but not yet compiled for these
    shapes. Placement and warm-up must finish before the first sample starts.

    Returns:
        (last_output, samples): the output of the last timed call, and a list of `repeats`
        floats, each one call on the placed arguments, in seconds, from just before the
        call until its output is ready.
    """
    # One-off setup, outside the timer: place, wait, warm up (compiles), wait.
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples


if __name__ == "__main__":
    # The lesson's world.
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    cpu = jax.devices("cpu")[0]
    compiled_predict = jax.jit(lambda x, w: jnp.tanh(x @ w))  # not compiled yet
    reference = np.tanh(x_host @ w_host)


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

    result, samples = device_resident_benchmark(watched, (x_host, w_host), cpu, 5)
    np.testing.assert_allclose(np.asarray(result), reference, atol=2e-5, rtol=2e-5)
    print("samples (ms):", [f"{s * 1e3:.3f}" for s in samples])
    timed = compiled_in_call[-len(samples):]  # your samples time your last calls
    if any(timed):
        first = next(i for i, seconds in enumerate(timed) if seconds)
        print(f"Sample {first + 1} includes compiling ({timed[first] * 1e3:.0f} ms of it): "
              "warm up before the timer starts.")
    else:
        print(f"No sample includes compiling: nothing compiled during your last "
              f"{len(samples)} calls.")
