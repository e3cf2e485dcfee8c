"""Exercise 9: Sweep a static argument: time every setting warm (reference solution)."""

import time
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def sweep_samples(fn, args, settings, repeats):
    """Time `repeats` warm calls of `fn(*args, setting)` for every setting.

    `fn` is jitted with its last parameter static: each new setting compiles on its first
    call. `args` are placed on the device and ready.

    Returns:
        (outputs, samples): `outputs[i]` is the output of the last call with
        `settings[i]`; `samples[i]` is a list of `repeats` floats, each the duration of
        one warm call with `settings[i]` in seconds, until its output is ready.
    """
    # Each static value is its own program: compile and wait for every one of them
    # before any timer starts.
    for setting in settings:
        fn(*args, setting).block_until_ready()
    outputs, samples = [], []
    for setting in settings:
        times = []
        out = None
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args, setting)
            out.block_until_ready()
            stop = time.perf_counter()
            times.append(stop - start)
        outputs.append(out)
        samples.append(times)
    return outputs, samples


@partial(jax.jit, static_argnums=2)
def blocked_predict(x, w, block):
    """tanh(x @ w), computed `block` rows at a time; `block` is static."""
    parts = [jnp.tanh(x[i:i + block] @ w) for i in range(0, x.shape[0], block)]
    return jnp.concatenate(parts, axis=0)


if __name__ == "__main__":
    # The lesson's world.
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    cpu = jax.devices("cpu")[0]
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    jax.block_until_ready((x, w))
    reference = np.tanh(x_host @ w_host)

    # Which calls compiled: JAX reports each compilation as it happens, so this does not
    # depend on timings (a busy machine can make any sample slow without compiling).
    compile_seconds = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, seconds, **_: compile_seconds.append(seconds)
        if event == "/jax/core/compile/backend_compile_duration" else None)
    compiled_in_call = []  # (setting, seconds spent compiling) for each call

    def watched(*args, **kwargs):
        before = len(compile_seconds)
        out = blocked_predict(*args, **kwargs)
        setting = kwargs.get("block", args[-1] if len(args) > 2 else None)
        compiled_in_call.append((setting, sum(compile_seconds[before:])))
        return out

    settings = [16, 32, 64]
    outputs, samples = sweep_samples(watched, (x, w), settings, 5)
    cold = []
    for setting, out, times in zip(settings, outputs, samples):
        np.testing.assert_allclose(np.asarray(out), reference, atol=2e-5, rtol=2e-5)
        # Your samples for a setting time its last calls.
        timed = [s for k, s in compiled_in_call if k == setting][-len(times):]
        note = ""
        if any(timed):
            cold.append(setting)
            note = f"  <- a sample includes compiling ({max(timed) * 1e3:.0f} ms of it)"
        print(f"block={setting:3d}  median {np.median(times) * 1e3:.3f} ms  "
              f"max {max(times) * 1e3:.3f} ms{note}")
    if cold:
        print(f"Warm up every setting before its timer starts (still compiling: {cold}).")
    else:
        print("No sample includes compiling: every setting was warm before its timer started.")
