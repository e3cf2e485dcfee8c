"""Exercise 6: Repair a flawed timer (diagnosis) (reference solution)."""

import time

import jax
import jax.numpy as jnp
import numpy as np

PHASES = (
    "input placement",
    "compilation",
    "dispatch",
    "device execution",
    "output wait",
    "host transfer",
)


def flawed_benchmark(fn, host_args, repeats):
    """The timer from the bug report (given; do not edit).

    Each sample places the NumPy `host_args` on the device inside the timer, and stops as
    soon as `fn` returns a handle, before the device has finished.
    """
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a) for a in host_args]
        out = fn(*args)
        samples.append(time.perf_counter() - start)
    return out, samples


def repaired_benchmark(fn, args, repeats=5):
    """Time `repeats` warm, completed calls of `fn(*args)` on placed `args`.

    `args` are placed on the device but may not be ready; `fn` is jitted but not yet
    compiled for them.

    Returns:
        (report, result): `report` is `{"boundary": set[str], "samples": list[float]}`,
        where `boundary` is the set of phases (from `PHASES`) your interval contains and
        `samples` holds `repeats` durations in seconds; `result` is the output of the last
        timed call.
    """
    jax.block_until_ready(args)  # placement finishes before any timing
    jax.block_until_ready(fn(*args))  # warm-up: compilation stays outside the timer
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        result.block_until_ready()  # wait for this call's output before stopping
        samples.append(time.perf_counter() - start)
    boundary = {"dispatch", "device execution", "output wait"}
    return {"boundary": boundary, "samples": samples}, result


if __name__ == "__main__":
    # The lesson's world.
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    cpu = jax.devices("cpu")[0]
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    compiled_predict = jax.jit(lambda x, w: jnp.tanh(x @ w))
    reference = np.tanh(x_host @ w_host)

    _, flawed_times = flawed_benchmark(compiled_predict, (x_host, w_host), 5)
    print("flawed samples (s):  ", [f"{s:.6f}" for s in flawed_times])

    # A fresh jitted function, not yet compiled, as the grader hands it to you.
    fresh_predict = jax.jit(lambda x, w: jnp.tanh(x @ w))
    fixed_report, fixed_result = repaired_benchmark(fresh_predict, (x, w))
    np.testing.assert_allclose(np.asarray(fixed_result), reference, atol=2e-5, rtol=2e-5)
    assert len(fixed_report["samples"]) == 5
    assert fixed_report["boundary"] <= set(PHASES)
    print("repaired samples (s):", [f"{s:.6f}" for s in fixed_report["samples"]])
    print("declared boundary:   ", sorted(fixed_report["boundary"]))
