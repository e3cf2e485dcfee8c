# flaw: subtracts an estimated timer overhead from every sample, so no sample is a
#       difference the timer really measured (report what you measured, unchanged)
# expect-fail: samples-measured
"""Exercise 8: End-to-end request, named separately (reference solution)."""

import time

_TIMER_OVERHEAD = 2e-5  # the cost of reading the clock, measured once on my laptop

import jax
import jax.numpy as jnp
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    """Time `repeats` end-to-end requests: place `host_args` on `device`, call `fn`, and
    bring the result back to the host as a NumPy array.

    `host_args` are NumPy arrays; `fn` is jitted but not yet compiled for them.

    Returns:
        (host_result, samples): the NumPy result of the last request, and a list of
        `repeats` floats, each one whole request in seconds.
    """
    # Warm-up outside the timer: same function, shapes, dtypes and device as the samples.
    warm_args = [jax.device_put(a, device) for a in host_args]
    jax.block_until_ready(fn(*warm_args))
    samples = []
    host_result = None
    for _ in range(repeats):
        start = time.perf_counter()
        args = [jax.device_put(a, device) for a in host_args]  # placement is in the request
        host_result = np.asarray(fn(*args))  # so is the readback, which also waits
        samples.append(time.perf_counter() - start - _TIMER_OVERHEAD)
    return host_result, samples


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

    host_result, request_times = end_to_end_samples(compiled_predict, (x_host, w_host), cpu, 5)
    assert isinstance(host_result, np.ndarray)
    np.testing.assert_allclose(host_result, reference, atol=2e-5, rtol=2e-5)
    print("end-to-end samples (s):", [f"{s:.6f}" for s in request_times])

    # The warm, device-resident bar for comparison (a different interval, named separately).
    jax.block_until_ready((x, w))
    compiled_predict(x, w).block_until_ready()
    warm_times = []
    for _ in range(5):
        start = time.perf_counter()
        compiled_predict(x, w).block_until_ready()
        warm_times.append(time.perf_counter() - start)
    print("warm device samples (s):", [f"{s:.6f}" for s in warm_times])
    print(f"end-to-end median {np.median(request_times) * 1e3:.3f} ms vs "
          f"warm median {np.median(warm_times) * 1e3:.3f} ms")
